package catalog

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/lockcheck/lockcheck/workloads/catalog/release"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// npmReleases runs the node driver in folder src at any release of the npm
// package pkg: the driver's package.json and package-lock.json are copied
// into the cache folder, npm installs pkg@V there (exact, recorded in the
// lockfile with the registry's integrity hash, which npm checks every
// tarball against) and the driver's scripts are copied beside them, so
// that they load that release.
func npmReleases(src, pkg, pinned string, supports subject.Range) *releases {
	return &releases{
		library: "npm-" + pkg, registry: "the npm registry's " + pkg, pinned: pinned, supports: supports,
		list:    func(ctx context.Context) ([]string, error) { return release.NPMVersions(ctx, pkg) },
		howTo:   "npm view " + pkg + " versions",
		sources: []string{src},
		build: func(ctx context.Context, v, dir string) error {
			from, err := shippedDir(src)
			if err != nil {
				return err
			}
			if err := copyFiles(from, dir, func(name string) bool {
				return name == "package.json" || name == "package-lock.json" || strings.HasSuffix(name, ".js")
			}); err != nil {
				return err
			}
			return release.Run(ctx, dir, nil, "npm", "install", "--no-audit", "--no-fund", "--save-exact", pkg+"@"+v)
		},
		at: func(d Driver, v, dir string) Driver {
			d.Dir = dir
			d.Doc = fmt.Sprintf("%s, at %s %s", d.Doc, pkg, v)
			return d
		},
	}
}

// copyFiles copies the regular files of from whose names keep accepts
// into to.
func copyFiles(from, to string, keep func(name string) bool) error {
	entries, err := os.ReadDir(from)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || !keep(e.Name()) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}
