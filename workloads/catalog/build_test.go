package catalog

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// builtDriver is a driver in a folder of its own whose Installed passes
// once the file "built" is there, and whose Build runs script (sh -c) in
// that folder.
func builtDriver(t *testing.T, script string) (Driver, string) {
	t.Helper()
	dir := t.TempDir()
	return Driver{
		Name:  "fake",
		Build: []string{"sh", "-c", script},
		Installed: func(dir string) error {
			if _, err := os.Stat(filepath.Join(dir, "built")); err != nil {
				return errors.New("not built")
			}
			return nil
		},
	}, dir
}

// TestBuilderBuildsOnce: a driver that is not built is built by its script,
// once, though two goroutines ask for it together; a built one is not built
// again; the progress lines name the subject.
func TestBuilderBuildsOnce(t *testing.T) {
	d, dir := builtDriver(t, "echo run >> runs; sleep 0.3; echo 'installing x ...' >&2; touch built")
	var progress syncBuffer
	b := Builder{Progress: &progress, Timeout: time.Minute}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range errs {
		wg.Go(func() { errs[i] = b.Ready(t.Context(), d, dir) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Ready(t.Context(), d, dir); err != nil {
		t.Fatal(err)
	}
	runs, err := os.ReadFile(filepath.Join(dir, "runs"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(runs), "run"); n != 1 {
		t.Errorf("the build ran %d times, want 1", n)
	}
	out := progress.String()
	for _, want := range []string{"building the driver of fake (sh -c", "installing x ...", "built the driver of fake in"} {
		if !strings.Contains(out, want) {
			t.Errorf("progress lacks %q:\n%s", want, out)
		}
	}
}

// TestBuilderErrors: a script that fails, one that cannot install
// (BuildSkipped), one that leaves the driver unbuilt, and one cut short
// by its timeout each give their own error; a driver without Build gives
// Installed's.
func TestBuilderErrors(t *testing.T) {
	for _, tc := range []struct {
		name, script string
		timeout      time.Duration
		want         error
		text         string
	}{
		{"fails", "echo 'mvn: no network' >&2; exit 1", time.Minute, ErrBuildFailed, "mvn: no network"},
		{"cannot install", fmt.Sprintf("echo 'skipping: no apt-get' >&2; exit %d", BuildSkipped), time.Minute, ErrCannotInstall, "no apt-get"},
		{"not built", "true", time.Minute, nil, "but still: not built"},
		{"timeout", "sleep 30 & wait", 300 * time.Millisecond, context.DeadlineExceeded, "building (sh -c"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, dir := builtDriver(t, tc.script)
			start := time.Now()
			err := Builder{Timeout: tc.timeout}.Ready(t.Context(), d, dir)
			if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) || !strings.Contains(err.Error(), tc.text) {
				t.Fatalf("Ready: %v, want %v containing %q", err, tc.want, tc.text)
			}
			if time.Since(start) > 10*time.Second {
				t.Errorf("Ready took %s", time.Since(start))
			}
		})
	}
	d, dir := builtDriver(t, "touch built")
	d.Build = nil
	if err := (Builder{}).Ready(t.Context(), d, dir); err == nil || err.Error() != "not built" {
		t.Errorf("Ready without Build: %v, want Installed's error", err)
	}
}

// TestShippedDriversHaveBuildScripts: every shipped driver's Build is a
// script in its folder.
func TestShippedDriversHaveBuildScripts(t *testing.T) {
	base, err := DriversDir()
	if err != nil {
		t.Skip(err)
	}
	for _, d := range Drivers() {
		if len(d.Build) < 2 {
			t.Errorf("driver %s: Build %q, want a script", d.Name, d.Build)
			continue
		}
		if _, err := os.Stat(filepath.Join(base, d.Dir, d.Build[1])); err != nil {
			t.Errorf("driver %s: %v", d.Name, err)
		}
	}
}

// syncBuffer is a strings.Builder safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
