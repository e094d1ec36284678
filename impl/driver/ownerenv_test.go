package driver

import (
	"fmt"
	"testing"
	"time"
)

// OwnerEnv reaches the owner's driver process (after Env, so it wins), and
// a process started for no owner (Probe) gets none of it.
func TestOwnerEnv(t *testing.T) {
	banner := fmt.Sprintf(`printf '{"protocol":%d,"driver":"%%s"}\n' "$LOCKCHECK_TEST_CLOCK"; cat >/dev/null`, Version)
	o := Options{
		Command: []string{"sh", "-c", banner}, Env: []string{"LOCKCHECK_TEST_CLOCK=shared"},
		OwnerEnv: func(owner string) []string { return []string{"LOCKCHECK_TEST_CLOCK=clock-of-" + owner} },
	}
	for owner, want := range map[string]string{"w1": "clock-of-w1", "": "shared"} {
		p, err := startProc(t.Context(), &o, owner)
		if err != nil {
			t.Fatal(err)
		}
		if p.banner.Driver != want {
			t.Errorf("owner %q: driver saw %q, want %q", owner, p.banner.Driver, want)
		}
		_ = p.close(time.Second)
	}
}
