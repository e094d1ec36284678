package results

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/lockcheck/lockcheck/model"
)

// LoadWireTrace reads the wire trace of run directory dir (model.WireFile):
// nil with no error when the run recorded none. A line cut short at the
// end (a run killed while it wrote) ends the trace; any other bad line is
// an error naming it.
func LoadWireTrace(dir string) (*model.WireTrace, error) {
	f, err := os.Open(filepath.Join(dir, model.WireFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var events []model.WireEvent
	sc := bufio.NewScanner(f)
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
