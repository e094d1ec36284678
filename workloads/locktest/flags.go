package locktest

import (
	"flag"
	"strconv"
	"testing"
	"time"
)

// rapidFlags sets rapid's flags for one scenario's check, each restored
// when t ends and each left alone when the command line set it: checks
// runs (rapid runs a fifth of them under -short), and no fail files (the
// failure prints the -rapid.seed that replays it).
func rapidFlags(t *testing.T, checks int) {
	if testing.Short() {
		checks *= 5
	}
	setFlag(t, "rapid.checks", strconv.Itoa(checks))
	setFlag(t, "rapid.nofailfile", "true")
}

// shrinkFor bounds rapid's shrinking to d (at least nothing).
func shrinkFor(t *testing.T, d time.Duration) {
	setFlag(t, "rapid.shrinktime", max(d, 0).String())
}

// setFlag sets the flag called name to value until t ends, unless the
// command line set it.
func setFlag(t *testing.T, name, value string) {
	f := flag.Lookup(name)
	if f == nil || onCommandLine(name) {
		return
	}
	old := f.Value.String()
	if err := f.Value.Set(value); err != nil {
		t.Fatalf("locktest: set -%s=%s: %v", name, value, err)
	}
	t.Cleanup(func() { _ = f.Value.Set(old) })
}

// onCommandLine reports whether the flag called name was given.
func onCommandLine(name string) bool {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
