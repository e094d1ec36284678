package catalog

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/lockcheck/lockcheck/workloads/catalog/release"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// rslockVersionLine is Cargo.toml's rslock requirement, whose version a
// build of another release replaces.
var rslockVersionLine = regexp.MustCompile(`(?m)^rslock = \{ version = "=[^"]*"`)

// crateReleases runs the rslock driver at any rslock release it compiles
// against: its Cargo.toml (rslock required at exactly V), Cargo.lock and
// sources are copied into the cache, cargo moves the lockfile to V (cargo
// update --precise, recording crates.io's checksum) and builds with
// --locked, checking every crate against the lockfile's checksums.
func crateReleases() *releases {
	return &releases{
		library: "crate-rslock", registry: "crates.io's rslock", pinned: "0.10.0",
		supports: subject.Range{Min: "0.9.0", Max: "0.10.x", Note: "measured: 0.9.1, 0.10.0; older releases have another LockManager and redis-rs, not tried"},
		list:     func(ctx context.Context) ([]string, error) { return release.CrateVersions(ctx, "rslock") },
		howTo:    "cargo info rslock, or the versions on crates.io",
		sources:  []string{"rslock"},
		build: func(ctx context.Context, v, dir string) error {
			from, err := shippedDir("rslock")
			if err != nil {
				return err
			}
			if err := os.CopyFS(filepath.Join(dir, "src"), os.DirFS(filepath.Join(from, "src"))); err != nil {
				return err
			}
			if err := copyFiles(from, dir, func(n string) bool { return n == "Cargo.lock" }); err != nil {
				return err
			}
			toml, err := os.ReadFile(filepath.Join(from, "Cargo.toml"))
			if err != nil {
				return err
			}
			toml = rslockVersionLine.ReplaceAll(toml, []byte(`rslock = { version = "=`+v+`"`))
			toml = regexp.MustCompile(`(?ms)^\[\[example\]\].*`).ReplaceAll(toml, nil) // repro/ is not copied
			if err := os.WriteFile(filepath.Join(dir, "Cargo.toml"), toml, 0o644); err != nil {
				return err
			}
			if err := release.Run(ctx, dir, nil, "cargo", "update", "-q", "-p", "rslock", "--precise", v); err != nil {
				return err
			}
			return release.Run(ctx, dir, []string{"CARGO_TARGET_DIR=" + filepath.Join(dir, "target")}, "cargo", "build", "--release", "--locked", "-q")
		},
		at: func(d Driver, v, dir string) Driver {
			d.Command = []string{filepath.Join(dir, rslockBinary)}
			d.Installed = nil
			d.Doc = fmt.Sprintf("%s, at rslock %s", d.Doc, v)
			return d
		},
	}
}
