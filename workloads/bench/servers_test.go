package bench

import (
	"strings"
	"testing"
)

// TestWriteServersTable: each cell is one row, each server one column,
// and a cell a server lacks is "-".
func TestWriteServersTable(t *testing.T) {
	a := &Report{Uncontended: []Row{{Subject: "reentrant", Workers: 1, CyclesPerSec: 1000}}, Contended: []Row{{Subject: "fair", Workers: 8, CyclesPerSec: 300}}}
	b := &Report{Uncontended: []Row{{Subject: "reentrant", Workers: 1, CyclesPerSec: 2500}}}
	var out strings.Builder
	if err := WriteServersTable(&out, []ServerReport{{"redis-7.0", a}, {"valkey-8.1", b}}, true); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{"redis-7.0", "valkey-8.1", "1,000", "2,500", "300"} {
		if !strings.Contains(got, want) {
			t.Errorf("table lacks %q:\n%s", want, got)
		}
	}
	for _, line := range strings.Split(got, "\n") {
		if strings.Contains(line, "fair") && !strings.HasSuffix(strings.TrimSpace(line), "| - |") && !strings.Contains(line, " - ") {
			t.Errorf("the fair row should show - for valkey-8.1: %q", line)
		}
	}
}
