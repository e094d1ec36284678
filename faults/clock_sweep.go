package faults

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
)

// staleClockRE matches a Clock file's name: its owner's pid and start time
// (owner), then CreateTemp's random part.
var staleClockRE = regexp.MustCompile(`^lockcheck-clock-(\d+)-(\d+)-`)

// sweepClocks heals and removes the Clock files in tmpDir of lockcheck
// processes that are gone: each offset is set to 0 first, so that a process
// still running through the shim on it (one that outlived its lockcheck)
// gets the real time back, then the file is removed. It returns the files
// it removed.
func sweepClocks(tmpDir string) ([]string, []error) {
	entries, err := os.ReadDir(tmpDir)
	if err != nil {
		return nil, []error{fmt.Errorf("sweep %s: %w", tmpDir, err)}
	}
	var swept []string
	var errs []error
	for _, e := range entries {
		m := staleClockRE.FindStringSubmatch(e.Name())
		if m == nil || !e.Type().IsRegular() {
			continue
		}
		if o, ok := parseOwner(m[1], m[2]); !ok || !o.gone() {
			continue
		}
		p := filepath.Join(tmpDir, e.Name())
		f, err := os.OpenFile(p, os.O_RDWR, 0)
		if err != nil {
			errs = append(errs, fmt.Errorf("sweep: %w", err))
			continue
		}
		c, err := mapClock(f)
		if err != nil {
			errs = append(errs, fmt.Errorf("sweep: %w", err))
			continue
		}
		if err := c.Close(); err != nil {
			errs = append(errs, fmt.Errorf("sweep: %w", err))
			continue
		}
		swept = append(swept, p)
	}
	return swept, errs
}
