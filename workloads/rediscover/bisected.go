package rediscover

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/lockcheck/lockcheck/workloads/bisect"
)

// BisectFile is the name, in a directory of bisections, of the result of
// `lockcheck bisect --bug ID --json` for bug ID.
func BisectFile(id string) string { return id + ".json" }

// AttachBisections attaches to each row of rep the bisection of its bug
// found in dir (BisectFile), if any: a result made for another bug, or for
// no bug, is an error, as is one that does not parse. A missing dir
// attaches nothing.
func AttachBisections(rep *Report, dir string) error {
	for i := range rep.Rows {
		r := &rep.Rows[i]
		data, err := os.ReadFile(filepath.Join(dir, BisectFile(r.Bug.ID)))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		var res bisect.Result
		if err := json.Unmarshal(data, &res); err != nil {
			return fmt.Errorf("%s: %w", BisectFile(r.Bug.ID), err)
		}
		if res.Bug != r.Bug.ID {
			return fmt.Errorf("%s: the bisection of %q, not of %s (lockcheck bisect --bug %s)", BisectFile(r.Bug.ID), res.Bug, r.Bug.ID, r.Bug.ID)
		}
		r.Bisect = &res
	}
	return nil
}
