package catalog

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/lockcheck/lockcheck/workloads/catalog/release"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// pipReleases runs the Python driver in folder src at any release of the
// PyPI project (imported as module): a virtualenv of its own in the cache (from Debian's
// python3, never the system's packages), into which pip downloads the
// release and the driver's other pinned requirements (each file checked
// against the sha256 PyPI's index gives), then installs exactly those
// files with --require-hashes (their hashes written to the build's
// requirements.lock). The driver's script runs from src with the cache's
// interpreter.
func pipReleases(src, project, module, pinned string, supports subject.Range) *releases {
	return &releases{
		library: "pypi-" + project, registry: "PyPI's " + project, pinned: pinned, supports: supports,
		list:    func(ctx context.Context) ([]string, error) { return release.PyPIVersions(ctx, project) },
		howTo:   "pip index versions " + project,
		sources: []string{src, "pylib"},
		build:   func(ctx context.Context, v, dir string) error { return pipBuild(ctx, src, project, v, dir) },
		at: func(d Driver, v, dir string) Driver {
			py := filepath.Join(dir, "venv", "bin", "python")
			d.Command = append([]string{py}, d.Command[1:]...)
			d.Installed = needPython(py, module)
			d.Doc = fmt.Sprintf("%s, at %s %s", d.Doc, project, v)
			return d
		},
	}
}

// pipBuild makes dir/venv with project v and the other requirements of
// the driver in src.
func pipBuild(ctx context.Context, src, project, v, dir string) error {
	from, err := shippedDir(src)
	if err != nil {
		return err
	}
	reqs, err := otherRequirements(filepath.Join(from, "requirements.txt"), project)
	if err != nil {
		return err
	}
	reqs = append(reqs, project+"=="+v)
	pip := filepath.Join(dir, "venv", "bin", "pip")
	dl := filepath.Join(dir, "download")
	if err := release.Run(ctx, dir, nil, debianPython, "-m", "venv", filepath.Join(dir, "venv")); err != nil {
		return err
	}
	if err := release.Run(ctx, dir, nil, append([]string{pip, "download", "-q", "--disable-pip-version-check", "-d", dl}, reqs...)...); err != nil {
		return err
	}
	lock, err := hashLock(dl)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "requirements.lock"), []byte(lock), 0o644); err != nil {
		return err
	}
	return release.Run(ctx, dir, nil, pip, "install", "-q", "--disable-pip-version-check", "--no-index", "--no-deps",
		"--require-hashes", "-r", filepath.Join(dir, "requirements.lock"))
}

// otherRequirements returns the pinned requirements of a requirements.txt
// ("name==version ; marker", hashes left out) other than project's.
func otherRequirements(path, project string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if l == "" || l[0] == ' ' || l[0] == '\t' || l[0] == '#' || l[0] == '-' {
			continue
		}
		req := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(l), "\\"))
		name, _, _ := strings.Cut(req, "==")
		if !strings.EqualFold(strings.ReplaceAll(name, "_", "-"), strings.ReplaceAll(project, "_", "-")) {
			out = append(out, req)
		}
	}
	return out, nil
}

// hashLock lists every file pip downloaded into dl with its sha256, as a
// requirements file for pip install --require-hashes.
func hashLock(dl string) (string, error) {
	entries, err := os.ReadDir(dl)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, e := range entries {
		p := filepath.Join(dl, e.Name())
		f, err := os.Open(p)
		if err != nil {
			return "", err
		}
		h := sha256.New()
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "%s --hash=sha256:%s\n", p, hex.EncodeToString(h.Sum(nil)))
	}
	return b.String(), nil
}

// needPython reports an interpreter that cannot import module.
func needPython(py, module string) func(string) error {
	return func(string) error {
		if err := exec.Command(py, "-c", "import "+module).Run(); err != nil {
			return fmt.Errorf("%s cannot import %s (%v): remove %s to build it again", py, module, err, filepath.Dir(filepath.Dir(filepath.Dir(py))))
		}
		return nil
	}
}
