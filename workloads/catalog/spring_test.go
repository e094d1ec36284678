package catalog

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/lockcheck/lockcheck/impl/driver"
)

// TestSpringNotBuilt: java alone is not enough: the jar must be built.
func TestSpringNotBuilt(t *testing.T) {
	if _, err := exec.LookPath("java"); err != nil {
		t.Skip("no java here: TestRedissonNotInstalled covers a missing java")
	}
	err := needSpring(t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "spring-lock-driver.jar is not built") || !strings.Contains(err.Error(), "make deps") {
		t.Fatalf("without the jar: %v", err)
	}
}

// TestSpringCompat: the driver's compat source set and capabilities by
// release, either side of 6.4.0 (the library's renewal task): the older
// releases build src/compat/legacy and announce no watchdog.
func TestSpringCompat(t *testing.T) {
	var pubsub Driver
	for _, d := range springDrivers() {
		if d.Name == "spring-lock-pubsub" {
			pubsub = d
		}
	}
	pinned := slices.Clone(pubsub.Capabilities)
	for v, want := range map[string]string{
		"6.0.0": "legacy", "6.1.9": "legacy", "6.3.11": "legacy", "6.4.0-M1": "legacy",
		"6.4.0": "current", "6.5.5": "current", "7.0.5": "current", "7.1.0-M1": "current",
	} {
		if got := springCompat(v); got != want {
			t.Errorf("springCompat(%s) = %s, want %s", v, got, want)
		}
		at := springAt(pubsub, v, "/cache/"+v)
		if renews := slices.Contains(at.Capabilities, driver.CapWatchdog); renews != (want == "current") {
			t.Errorf("%s: capabilities %v: watchdog %v, want %v", v, at.Capabilities, renews, want == "current")
		}
		if !slices.Contains(at.Command, "/cache/"+v) || at.Command[len(at.Command)-1] != "pubsub" {
			t.Errorf("%s: command %v, want driver.sh --build /cache/%s ... pubsub", v, at.Command, v)
		}
	}
	if !slices.Equal(pubsub.Capabilities, pinned) {
		t.Errorf("the pinned driver's capabilities changed to %v", pubsub.Capabilities)
	}
}
