package releases

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/lockcheck/lockcheck/workloads/rediscover"
)

// listFile is the name of a library's cached release list in its folder.
const listFile = "releases.json"

// List is a registry's release list as it was asked, cached in
// Dir/LIB/releases.json.
type List struct {
	// Registry names the registry and the package.
	Registry string `json:"registry"`
	// Asked is the day the registry was asked (UTC, YYYY-MM-DD).
	Asked string `json:"asked"`
	// Releases are the releases it served, oldest first.
	Releases []string `json:"releases"`
}

// Hunt is what lockcheck's own hunt found in one release: a fixed budget
// on each of fixed seeds, cached in Dir/LIB/VERSION.json.
type Hunt struct {
	// Release is the release hunted; Subject the subject run for it.
	Release string `json:"release"`
	Subject string `json:"subject"`
	// Budget is each seed's hunt's budget; Seeds the first seed of each.
	Budget time.Duration `json:"budget_ns"`
	Seeds  []int64       `json:"seeds"`
	// Date (UTC, YYYY-MM-DD) and Commit are when and by which lockcheck
	// it was hunted; Command hunts it again.
	Date    string `json:"date"`
	Commit  string `json:"commit,omitempty"`
	Command string `json:"command"`
	// Hunts are the hunts, one per seed (their run directories left out:
	// they are not kept).
	Hunts []rediscover.Hunted `json:"hunts"`
}

// libDir is the folder of lib's cache under dir.
func libDir(dir, lib string) string { return filepath.Join(dir, lib) }

// LoadList reads lib's cached release list; ok is false when there is
// none.
func LoadList(dir, lib string) (l List, ok bool, err error) {
	data, err := os.ReadFile(filepath.Join(libDir(dir, lib), listFile))
	if errors.Is(err, os.ErrNotExist) {
		return List{}, false, nil
	}
	if err == nil {
		err = json.Unmarshal(data, &l)
	}
	if err != nil {
		return List{}, false, fmt.Errorf("cached release list of %s: %w", lib, err)
	}
	return l, true, nil
}

// SaveList writes lib's release list into its cache.
func SaveList(dir, lib string, l List) error {
	return writeJSON(filepath.Join(libDir(dir, lib), listFile), l)
}

// LoadHunts reads lib's cached hunts, by release.
func LoadHunts(dir, lib string) (map[string]*Hunt, error) {
	paths, err := filepath.Glob(filepath.Join(libDir(dir, lib), "*.json"))
	if err != nil {
		return nil, err
	}
	out := map[string]*Hunt{}
	for _, p := range paths {
		if filepath.Base(p) == listFile {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		var h Hunt
		if err := json.Unmarshal(data, &h); err != nil {
			return nil, fmt.Errorf("cached hunt %s: %w", p, err)
		}
		if want := strings.TrimSuffix(filepath.Base(p), ".json"); h.Release != want {
			return nil, fmt.Errorf("cached hunt %s: it is of release %q", p, h.Release)
		}
		out[h.Release] = &h
	}
	return out, nil
}

// SaveHunt writes h into lib's cache, without its hunts' run directories.
func SaveHunt(dir, lib string, h *Hunt) error {
	c := *h
	c.Hunts = make([]rediscover.Hunted, len(h.Hunts))
	for i, x := range h.Hunts {
		x.Dirs = nil
		if x.Find != nil {
			f := *x.Find
			f.Dir = ""
			x.Find = &f
		}
		c.Hunts[i] = x
	}
	return writeJSON(filepath.Join(libDir(dir, lib), h.Release+".json"), c)
}

// writeJSON writes v, indented, to path, making its folder.
func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}
