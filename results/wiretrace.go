package results

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/lockcheck/lockcheck/model"
)

// LoadWireTrace reads the wire trace of run directory dir (model.WireFile,
// or its gzipped copy on a page):
// nil with no error when the run recorded none. A line cut short at the
// end (a run killed while it wrote) ends the trace; any other bad line is
// an error naming it.
func LoadWireTrace(dir string) (*model.WireTrace, error) {
	if keptName(dir, model.WireFile) == "" {
		return nil, nil
	}
	b, err := readRunFile(dir, model.WireFile) // wire.jsonl, or a page's wire.jsonl.gz
	if err != nil {
		return nil, err
	}
	var events []model.WireEvent
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		var e model.WireEvent
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			if !sc.Scan() {
				break // the last line, cut short
			}
			return nil, fmt.Errorf("%s line %d: %w", model.WireFile, n, err)
		}
		events = append(events, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", model.WireFile, err)
	}
	return model.NewWireTrace(events), nil
}
