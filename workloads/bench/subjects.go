package bench

import (
	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/impl/peers"
)

// Subject is one lock implementation to measure.
type Subject struct {
	// Name labels the subject's rows (lowercase, no spaces).
	Name string
	// Doc is one line: what it is and how it is configured.
	Doc string
	// Open makes a Maker on a go-redis client; the engine calls it once per
	// worker, each worker being one simulated process.
	Open impl.MakerFunc
	// Fair says grants follow request order: its overtakes should be 0.
	Fair bool
}

// DefaultSubjects returns lockcheck's locks and the peers, in table order:
// reentrant, fair, fenced, simple, redsync, redsync-tuned, redislock,
// redislock-tuned. The first subject is the baseline of the ratio table.
func DefaultSubjects() []Subject {
	s := []Subject{
		{Name: "reentrant", Doc: "lockcheck Redisson RLock port: hash + Lua, pub/sub wake-ups, watchdog", Open: impl.ReentrantMaker()},
		{Name: "fair", Doc: "lockcheck Redisson RFairLock port: FIFO queue, per-waiter wake-ups", Open: impl.FairMaker(), Fair: true},
		{Name: "fenced", Doc: "lockcheck Redisson RFencedLock port: reentrant + fencing token counter", Open: impl.FencedMaker()},
		{Name: "simple", Doc: "lockcheck simple lock: SET NX PX, compare-and-delete unlock, bounded polling", Open: impl.SimpleMaker()},
	}
	for _, p := range peers.All() {
		s = append(s, Subject{Name: p.Name, Doc: p.Doc, Open: p.Open})
	}
	return s
}
