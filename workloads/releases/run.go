package releases

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/lockcheck/lockcheck/workloads/rediscover"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// Config is one `lockcheck releases` question.
type Config struct {
	// Name is LIB, or LIB@VERSION for one release.
	Name string
	// Dir holds the caches (Dir/LIB/); Catalog is the catalog of known
	// bugs.
	Dir, Catalog string
	// Refresh asks the registry for its list even when one is cached.
	Refresh bool
	// Hunt, if set, hunts the releases (LIB: every row the driver
	// supports whose cached hunt is not of Hunt's budget and seeds; LIB@V:
	// V) and caches the hunts before answering.
	Hunt *HuntConfig
	// JSON prints the answer as JSON; Markdown, if set, also writes the
	// table's page there (LIB only).
	JSON     bool
	Markdown string
	// Stamp dates the page and the list asked now.
	Stamp Stamp
}

// Stamp is when, and by which lockcheck, a page was made.
type Stamp struct {
	Date   string // UTC, YYYY-MM-DD
	Commit string // short; "" when unknown
}

// Run answers cfg's question on w. An error wraps ErrInput for a command
// line that names no library or release it can answer for.
func Run(ctx context.Context, cfg Config, w io.Writer) error {
	libName, v := subject.SplitVersion(cfg.Name)
	if cfg.Markdown != "" && v != "" {
		return inputf("--md writes a library's page: name LIB, not %s", cfg.Name)
	}
	lib, t, err := cfg.Table(ctx, libName)
	if err != nil {
		return err
	}
	if v != "" {
		return cfg.answer(ctx, lib, t, v, w)
	}
	if cfg.Hunt != nil {
		if t, err = cfg.huntAll(ctx, lib, t); err != nil {
			return err
		}
	}
	return cfg.writeTable(t, w)
}

// Table is the table of the library called name: from cfg's catalog,
// the hunts cached in cfg.Dir and the registry's list of releases (the
// cached one; asked, and cached, when there is none or cfg.Refresh). An
// error wraps ErrInput for an unknown library or a catalog that does not
// load.
func (cfg Config) Table(ctx context.Context, name string) (Library, Table, error) {
	lib, err := LookupLibrary(ctx, name)
	if err != nil {
		return Library{}, Table{}, err
	}
	t, err := cfg.TableOf(ctx, lib)
	return lib, t, err
}

// TableOf is Table for lib.
func (cfg Config) TableOf(ctx context.Context, lib Library) (Table, error) {
	cat, err := rediscover.LoadFile(cfg.Catalog)
	if err != nil {
		return Table{}, inputf("--catalog: %v", err)
	}
	list, err := cfg.list(ctx, lib)
	if err != nil {
		return Table{}, err
	}
	hunts, err := LoadHunts(cfg.Dir, lib.Name)
	if err != nil {
		return Table{}, err
	}
	return Build(lib, list, lib.Bugs(cat), hunts), nil
}

// list is lib's cached release list, or the registry's, asked now and
// cached, when there is none or cfg.Refresh.
func (cfg Config) list(ctx context.Context, lib Library) (List, error) {
	l, ok, err := LoadList(cfg.Dir, lib.Name)
	if err != nil || (ok && !cfg.Refresh) {
		return l, err
	}
	all, err := lib.Versions.List(ctx)
	if err != nil {
		return List{}, fmt.Errorf("%s: cannot ask %s for its releases (%v); to ask by hand: %s", lib.Name, lib.Versions.Registry, err, lib.Versions.HowToList)
	}
	l = List{Registry: lib.Versions.Registry, Asked: cfg.Stamp.Date, Releases: all}
	return l, SaveList(cfg.Dir, lib.Name, l)
}

// answer answers for release v, hunting it first when asked.
func (cfg Config) answer(ctx context.Context, lib Library, t Table, v string, w io.Writer) error {
	if _, err := t.Answer(v); err != nil {
		return err
	}
	if cfg.Hunt != nil {
		if err := cfg.hunt(ctx, lib, &t, v); err != nil {
			return err
		}
	}
	a, err := t.Answer(v)
	if err != nil {
		return err
	}
	if cfg.JSON {
		return writeJSONTo(w, a)
	}
	return WriteAnswer(w, a, *cfg.huntOrDefault())
}

// huntAll hunts every row the driver supports that has no cached hunt of
// cfg.Hunt's budget and seeds.
func (cfg Config) huntAll(ctx context.Context, lib Library, t Table) (Table, error) {
	for _, r := range t.Rows {
		if r.Supported && r.Served && !cfg.Hunt.Same(r.Hunt) {
			if err := cfg.hunt(ctx, lib, &t, r.Release); err != nil {
				return t, err
			}
		}
	}
	return t, nil
}

// hunt hunts release v, caches the hunt and puts it in t. A hunt cut
// short by ctx is not cached.
func (cfg Config) hunt(ctx context.Context, lib Library, t *Table, v string) error {
	h, err := HuntRelease(ctx, lib, v, *cfg.Hunt)
	if err != nil {
		return err
	}
	if err := SaveHunt(cfg.Dir, lib.Name, h); err != nil {
		return err
	}
	t.setHunt(v, h)
	return nil
}

// huntOrDefault is cfg.Hunt, else the hunt a page's rerun commands name.
func (cfg Config) huntOrDefault() *HuntConfig {
	if cfg.Hunt != nil {
		return cfg.Hunt
	}
	return &HuntConfig{Budget: DefaultBudget, Seeds: DefaultSeeds}
}

// DefaultBudget and DefaultSeeds are the hunt of each release a rerun
// command names when no hunt was asked for.
const (
	DefaultBudget = 30 * time.Second
	DefaultSeeds  = 1
)

// writeTable prints t (as JSON, or as text) and writes its page when asked.
func (cfg Config) writeTable(t Table, w io.Writer) error {
	if cfg.Markdown != "" {
		if err := os.MkdirAll(filepath.Dir(cfg.Markdown), 0o755); err != nil {
			return err
		}
		f, err := os.Create(cfg.Markdown)
		if err != nil {
			return err
		}
		err = WritePage(f, t, cfg.Stamp)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("--md: %w", err)
		}
	}
	if cfg.JSON {
		return writeJSONTo(w, t)
	}
	return WriteTable(w, t, *cfg.huntOrDefault())
}
