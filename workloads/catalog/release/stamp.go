package release

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// skipDirs are build outputs and installed packages inside a driver's
// folder: not its sources.
var skipDirs = map[string]bool{"node_modules": true, ".venv": true, "repro": true, "__pycache__": true}

// SourceStamp returns a short digest of the files under roots (names and
// contents; build outputs such as target*/, node_modules/ and .venv/ left
// out): a cached build made from other sources of a driver is not reused.
func SourceStamp(roots ...string) (string, error) {
	h := sha256.New()
	for _, root := range roots {
		err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if e.IsDir() {
				if p != root && (skipDirs[e.Name()] || strings.HasPrefix(e.Name(), "target")) {
					return filepath.SkipDir
				}
				return nil
			}
			rel, _ := filepath.Rel(root, p)
			io.WriteString(h, filepath.Base(root)+"/"+rel+"\x00")
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			defer f.Close()
			_, err = io.Copy(h, f)
			return err
		})
		if err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:10], nil
}
