package rediscover

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads/hunt"
)

// Side is which release of a bug a hunt is of.
type Side string

const (
	SideBuggy Side = "buggy"
	SideFixed Side = "fixed"
)

// Release is one release of a bug's library, as the subject that runs it.
type Release struct {
	// Name is the release as the catalog names it: SUBJECT@VERSION.
	Name    string `json:"name"`
	Version string `json:"version"`
	// Subject is the subject run for it: Name, or the stand-in given
	// for it (StandIn).
	Subject string `json:"subject"`
	StandIn bool   `json:"stand_in,omitempty"`
	// NotRun says why the release was not hunted ("" when it was).
	NotRun string `json:"not_run,omitempty"`
}

// Hunted is what the hunts of one release showed. A hunt stops at its
// first find; the release is hunted on from the draw after the hunt's
// last (hunt.Config.Drawn), on what is left of the budget, unless that
// find has the bug's signature: one that does not count (its Class),
// another catalogued bug the release has (its signature is theirs:
// Finding.Known) or no bug the catalog knows there is recorded, and the
// hunting goes on. (A hunt for no bug in particular, HuntRelease, stops
// at the first find that counts.)
type Hunted struct {
	Release
	// Seeds are the first seeds of the hunts made, in order.
	Seeds []int64 `json:"seeds,omitempty"`
	// Runs counts the search runs of all its hunts (shrink runs apart).
	Runs int `json:"runs"`
	// Elapsed is the time from the budget's start to the end of the last
	// hunt.
	Elapsed time.Duration `json:"elapsed_ns"`
	// Find is the first find that counts and has the bug's signature; nil
	// when none did.
	Find *Finding `json:"find,omitempty"`
	// Others are the finds that count without the bug's signature, in
	// order: other catalogued bugs of the release (Known), and finds no
	// bug the catalog knows there ("other finds"), none of them shrunk.
	Others []Finding `json:"others,omitempty"`
	// Allowed are the finds that did not count, in order.
	Allowed []Finding `json:"allowed,omitempty"`
	// Untold are the earlier finds with the bug's signature whose replays
	// (Finding.Replays) did not tell the releases apart, in order: the
	// release was hunted on past each, on what was left of its budget
	// (Config.huntOn), and Find is the one after them.
	Untold []Finding `json:"untold,omitempty"`
	// Dirs are the hunts' directories.
	Dirs []string `json:"dirs,omitempty"`
	// Interrupted says ctx ended before the budget did.
	Interrupted bool `json:"interrupted,omitempty"`
	// Err is the error that stopped a hunt ("" when none did).
	Err string `json:"error,omitempty"`
}

// Finding is one find of a hunt.
type Finding struct {
	// Run is the number of the run that found it among the release's
	// search runs (1: the first); Seed and Draw say what it ran.
	Run  int    `json:"run"`
	Seed int64  `json:"seed"`
	Draw string `json:"draw"`
	// Detection is the time from the start of the release's budget to the
	// end of the run that found it (its check included).
	Detection time.Duration `json:"detection_ns"`
	// Class is the class of the run that found it; Why says what was
	// unexpected.
	Class Class  `json:"class"`
	Why   string `json:"why"`
	// Signatures are the signatures of the run's violations
	// (model.Report.Signatures).
	Signatures []model.Signature `json:"signatures,omitempty"`
	// Known is the catalog ID of another bug of the release one of whose
	// signatures the find has ("" when none: no other bug the catalog
	// knows there). The find of the bug sought may have one too: one run
	// can show two bugs.
	Known string `json:"known,omitempty"`
	// SharedWith, on the buggy release's find, is the catalog ID of a bug
	// both releases have whose signature the find's shows as well: its
	// signatures alone cannot say it is the bug's (claims), so it counts
	// only when its replays tell the releases apart (Row.judge), the fixed
	// release, which has that other bug too, clean of it where the buggy
	// one mostly shows it. "" for a find the signatures claim.
	SharedWith string `json:"shared_with,omitempty"`
	// Reproduced says the find failed again while the hunt shrank it (a
	// shrink step was kept); false when every simpler draw passed, or
	// shrinking had no time: a find seen once, as a stall of a loaded
	// machine can make one.
	Reproduced bool `json:"reproduced"`
	// Command reruns the shrunk draw (`lockcheck run ...`); Dir is the
	// shrunk run's directory.
	Command string `json:"command"`
	Dir     string `json:"dir"`
	// Replays are an untold find's replays on both releases (Hunted.Untold).
	Replays *Contrast `json:"replays,omitempty"`
}

// HuntRelease hunts one release, named SUBJECT@VERSION (version v), as
// Run hunts each release of a bug, for no bug in particular: for
// cfg.Budget from cfg.Seed, and on from the draw after the last hunt's
// while its finds do not count; the first find that counts is the
// Hunted's Find. The Observer hears the hunt's progress, not Hunting nor
// Judged; cfg.Bugs is not read. It returns an error wrapping ErrConfig,
// and nothing hunted, for a cfg that cannot run; a hunt that could not run
// is in Hunted.Err.
func HuntRelease(ctx context.Context, cfg Config, name, v string) (Hunted, error) {
	if cfg.Seed == 0 {
		return Hunted{}, fmt.Errorf("%w: Seed: a release's hunt takes a fixed seed", ErrConfig)
	}
	if err := cfg.resolve(); err != nil {
		return Hunted{}, err
	}
	h := Hunted{Release: cfg.named(name, v)}
	if h.NotRun != "" {
		return h, nil
	}
	return cfg.hunt(ctx, h, sought{}), nil
}

// sought is what a release's hunt looks for: the bug's signature, past
// the other catalogued bugs the release has (known), and not one that a
// bug the release shares with the other release explains as well
// (shared); with no bug (HuntRelease), any find that counts.
type sought struct {
	bug    Bug
	known  []Bug
	shared []Bug
	// buggy: the buggy release's hunt, where a find of a shared
	// signature may stand for the bug (ambiguous).
	buggy bool
}

// soughtAt is what the hunt of b's release on side looks for, with the
// catalog all.
func soughtAt(all []Bug, b Bug, side Side) sought {
	return sought{bug: b, known: knownAt(all, b, side), shared: sharedAt(all, b, side), buggy: side == SideBuggy}
}

// wants reports whether a find with signatures sigs is the one sought.
func (w sought) wants(sigs []model.Signature) bool {
	return w.bug.ID == "" || claims(w.bug, w.shared, sigs)
}

// ambiguous reports whether a find of the buggy release with signatures
// sigs has the bug's signature only where a bug both releases share has
// it too: not the one sought by its signatures, but one that replays on
// both releases can tell from the fix (Finding.SharedWith).
func (w sought) ambiguous(sigs []model.Signature) bool {
	return w.buggy && w.bug.ID != "" && !w.wants(sigs) && claims(w.bug, nil, sigs)
}

// lenient is w counting the shared bugs' signatures as the bug's: what
// the replays of a find that shares its signature (Finding.SharedWith)
// count on both releases.
func (w sought) lenient() sought {
	w.shared = nil
	return w
}

// same is the hunts' shrink rule for w (hunt.Config.Same): a find with
// the bug's signature is shrunk only to draws that show that signature
// again, so that its replays (Contrast) replay the bug; any other find, to
// draws that show its failure (hunt.SameFailure).
func (w sought) same(first, cand hunt.Trial) bool {
	if w.bug.ID != "" && w.wants(first.Report.Signatures()) {
		return w.wants(cand.Report.Signatures())
	}
	return hunt.SameFailure(first, cand)
}

// shrinks says whether a hunt for w shrinks a find: one that counts and is
// the find sought; not one allowed by its fault, another catalogued bug of
// the release, nor one no bug the catalog knows there, which are only
// recorded while the hunt goes on (their run's own draw reruns them), so
// shrinking them would spend the budget on something else than the bug.
func (w sought) shrinks(first hunt.Trial) bool {
	return classify(first).Counts() && w.wants(first.Report.Signatures())
}

// huntRelease hunts b's release on side for the budget: from Config.Seed,
// and on from the draw after the last hunt's while its finds do not count
// or are other catalogued bugs of the release.
func (cfg *Config) huntRelease(ctx context.Context, b Bug, side Side) Hunted {
	h := Hunted{Release: cfg.release(b, side)}
	cfg.Observer.Hunting(b, side, h.Release)
	if h.NotRun != "" {
		return h
	}
	want := soughtAt(cfg.catalog(), b, side)
	h = cfg.hunt(ctx, h, want)
	h.promoteShared(want)
	return h
}

// hunt hunts h's resolved release for want for the budget: one hunt of
// cfg.Seed's draws after another, each going on from the draws the ones
// before it made (hunt.Config.Drawn), while their finds do not end it. A
// release hunted before (h.Elapsed) goes on with what is left of its
// budget, its finds timed from the budget's start as if it had not
// paused.
func (cfg *Config) hunt(ctx context.Context, h Hunted, want sought) Hunted {
	start := cfg.now().Add(-h.Elapsed)
	deadline := start.Add(cfg.Budget)
	for ctx.Err() == nil {
		left := min(cfg.Budget, deadline.Sub(cfg.now()).Round(100*time.Millisecond))
		if left < hunt.MinRun || cfg.hunt1(ctx, &h, want, left, start) {
			break
		}
	}
	h.Interrupted = h.Interrupted || (ctx.Err() != nil && h.Find == nil)
	h.Elapsed = cfg.now().Sub(start)
	return h
}

// hunt1 runs one hunt of h's release, on from the h.Runs draws of
// cfg.Seed's sequence made before, with left of the budget that started at
// start, and adds what it showed to h. It reports whether the release's
// hunting is over: a find with the bug's signature, the budget spent, an
// error.
func (cfg *Config) hunt1(ctx context.Context, h *Hunted, want sought, left time.Duration, start time.Time) (done bool) {
	det := &detector{Observer: cfg.Observer, now: cfg.now}
	res, err := cfg.Hunt(ctx, hunt.Config{
		Subject: h.Subject, Registry: cfg.Registry, Budget: left, RunDuration: min(cfg.RunDuration, left),
		Seed: cfg.Seed, Drawn: h.Runs, Out: cfg.Out, Observer: det, Same: want.same, Shrinks: want.shrinks,
	})
	if res == nil {
		h.Err = errText(err, "the hunt returned no result")
		return true
	}
	before := h.Runs
	h.Seeds, h.Dirs, h.Runs = append(h.Seeds, res.Seed+int64(before)), append(h.Dirs, res.Dir), h.Runs+res.Tried.Runs
	if err != nil {
		h.Err = err.Error()
	}
	if res.Find == nil {
		h.Interrupted = res.Interrupted
		return true
	}
	at := det.at
	if at.IsZero() {
		at = cfg.now() // no Ran heard: the hunt's end bounds the detection
	}
	f := finding(res.Find, before, at.Sub(start))
	f.Known = knownMatch(want.known, f.Signatures)
	switch {
	case !f.Class.Counts():
		h.Allowed = append(h.Allowed, f)
	case want.wants(f.Signatures):
		h.Find = &f
		return true
	default:
		h.Others = append(h.Others, f)
		if want.bug.ID == "" {
			return true // HuntRelease: any find that counts ends it
		}
	}
	return err != nil || res.Tried.Runs == 0
}

// firstUnknown is h's first find that counts and is no bug the catalog
// knows there, nil when none is.
func (h *Hunted) firstUnknown() *Finding {
	for i := range h.Others {
		if h.Others[i].Known == "" {
			return &h.Others[i]
		}
	}
	return nil
}

// finding is the Finding of f, the find of a hunt that came after before
// runs of the same release.
func finding(f *hunt.Find, before int, detection time.Duration) Finding {
	return Finding{
		Run: before + f.Run, Seed: f.First.Draw.Seed, Draw: f.First.Draw.Describe(),
		Detection: detection, Class: classify(f.First), Why: f.First.Why, Signatures: f.First.Report.Signatures(),
		Reproduced: len(f.Steps) > 0, Command: f.CommandLine(), Dir: f.Shrunk.Dir,
	}
}

// detector passes a hunt's progress on and notes when the first search
// run that is a find ended.
type detector struct {
	Observer
	now func() time.Time
	at  time.Time
}

func (d *detector) Ran(label string, t hunt.Trial) {
	if t.Find && d.at.IsZero() && strings.HasPrefix(label, "run ") {
		d.at = d.now()
	}
	d.Observer.Ran(label, t)
}

// errText is err's text, or def for a nil err.
func errText(err error, def string) string {
	if err == nil {
		return def
	}
	return err.Error()
}
