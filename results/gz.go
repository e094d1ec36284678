package results

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/lockcheck/lockcheck/model"
)

// Gz is the suffix of a file a scoreboard page keeps compressed: its
// runs' config, history, result and wire trace (matrix.Publish), and its
// own HTML and JSON. LoadRun, LoadWireTrace, LoadReport and the summary
// read NAME or NAME.gz alike.
const Gz = ".gz"

// keptName is the name dir's file name is kept under: name, or name.gz
// when only that exists; "" when neither does.
func keptName(dir, name string) string {
	for _, n := range []string{name, name + Gz} {
		if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
			return n
		}
	}
	return ""
}

// readRunFile reads dir's file name, as kept (keptName), decompressed; an
// error wrapping fs.ErrNotExist when it is not there.
func readRunFile(dir, name string) ([]byte, error) {
	n := keptName(dir, name)
	if n == "" {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, name), fs.ErrNotExist)
	}
	return ReadKept(filepath.Join(dir, n))
}

// ReadKept reads the file at p, decompressed when its name ends in Gz (a
// run file, or a report, kept gzipped).
func ReadKept(p string) ([]byte, error) {
	if !strings.HasSuffix(p, Gz) {
		return os.ReadFile(p)
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return b, nil
}

// readHistoryFile reads dir's history as kept: model.ReadFile of the plain
// file, model.ReadHistory of the compressed one.
func readHistoryFile(dir string) (*model.History, error) {
	if n := keptName(dir, HistoryFile); strings.HasSuffix(n, Gz) {
		p := filepath.Join(dir, n)
		b, err := ReadKept(p)
		if err != nil {
			return nil, err
		}
		h, err := model.ReadHistory(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		return h, nil
	}
	return model.ReadFile(filepath.Join(dir, HistoryFile))
}

// CompressFile writes from's content, gzipped, into a new file to made
// with perm; it never overwrites (an existing to is an error wrapping
// fs.ErrExist).
func CompressFile(from, to string, perm os.FileMode) error {
	return copyWith(from, to, perm, func(w io.Writer, r io.Reader) error {
		return gzipped(func(zw io.Writer) error {
			_, err := io.Copy(zw, r)
			return err
		})(w)
	})
}

// gzipped is write through a gzip writer, closed when write is done.
func gzipped(write func(io.Writer) error) func(io.Writer) error {
	return func(w io.Writer) error {
		zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
		if err != nil {
			return err
		}
		return errors.Join(write(zw), zw.Close())
	}
}
