// Package release fetches and builds releases of the libraries lockcheck's
// drivers run, each into a folder of its own in a cache outside the
// repository ($XDG_CACHE_HOME/lockcheck, default ~/.cache/lockcheck), and
// lists the releases their registries serve. A build is made once, in a
// scratch folder renamed into place when complete, under a file lock that
// other lockcheck processes honour too; a complete build is reused.
package release

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// ErrNoCache is returned when no cache folder can be named (neither
// $XDG_CACHE_HOME nor a home directory).
var ErrNoCache = errors.New("no cache folder: set XDG_CACHE_HOME or HOME")

// CacheDir returns lockcheck's cache: $XDG_CACHE_HOME/lockcheck, else
// ~/.cache/lockcheck.
func CacheDir() (string, error) {
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "lockcheck"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return "", ErrNoCache
	}
	return filepath.Join(home, ".cache", "lockcheck"), nil
}

// Folder returns the cache folder of one release of one library (which
// need not exist yet): CacheDir/library/version.
func Folder(library, version string) (string, error) {
	c, err := CacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(c, library, version), nil
}

// doneMark is the file a complete build leaves in its folder.
const doneMark = ".lockcheck-built"

// Built reports whether dir holds a complete build.
func Built(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, doneMark))
	return err == nil
}

// Ensure makes dir hold a complete build: nothing when it does, else
// build into dir (emptied first), then mark it complete. A build is made
// in place because some record their own paths (a JVM's class-data
// archive). Concurrent callers, in this process or others, wait on a file
// lock (dir + ".lock") and reuse the first one's build. A failed build
// leaves nothing behind.
func Ensure(ctx context.Context, dir string, build func(ctx context.Context, dir string) error) error {
	if Built(dir) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	unlock, err := lockFile(ctx, dir+".lock")
	if err != nil {
		return err
	}
	defer unlock()
	if Built(dir) {
		return nil
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	err = build(ctx, dir)
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, doneMark), nil, 0o644)
	}
	if err != nil {
		os.RemoveAll(dir)
	}
	return err
}

// lockFile takes an exclusive flock on path, waiting until ctx is done.
// The flock is tried without blocking, every 200 ms, so that ctx bounds it.
func lockFile(ctx context.Context, path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if err := sleepCtx(ctx, lockPoll); err != nil {
			f.Close()
			return nil, fmt.Errorf("waiting for another build (%s): %w", path, err)
		}
	}
}
