package faults

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed" // the shim's source
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"time"
)

// The clock shim (clockshim/shim.c) is an LD_PRELOAD library that offsets
// CLOCK_REALTIME, gettimeofday and time() in the process it is loaded into
// by the nanoseconds a Clock's file holds. `make deps` builds it next to its
// source; ShimPath builds it on demand when it is missing or stale.

//go:embed clockshim/shim.c
var shimSource []byte

// Environment variables of the clock shim.
const (
	// EnvClockShim, if set, is the path of a prebuilt shim library that
	// ShimPath returns as is.
	EnvClockShim = "LOCKCHECK_CLOCKSHIM"
	// EnvClockFile names the offset file a shimmed process maps (read by
	// shim.c).
	EnvClockFile = "LOCKCHECK_CLOCK_FILE"
)

// ErrNoShim is wrapped by ShimPath's error when the shim cannot be built.
var ErrNoShim = errors.New("clock shim unavailable")

var shimMu sync.Mutex

// ShimPath returns the path of the clock shim library: $LOCKCHECK_CLOCKSHIM
// when set; else faults/clockshim/libclockshim.so in the source tree this
// package was built from (where `make deps` puts it), or a file in the
// user's cache directory named by the source's hash when there is no source
// tree. A missing or stale library is compiled with $CC (default gcc, then
// cc) within ctx; the result is renamed into place, so concurrent builders
// never see half a file.
func ShimPath(ctx context.Context) (string, error) {
	if p := os.Getenv(EnvClockShim); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%w: %s: %w", ErrNoShim, EnvClockShim, err)
		}
		return p, nil
	}
	shimMu.Lock()
	defer shimMu.Unlock()
	target := shimTarget()
	if shimFresh(target) {
		return target, nil
	}
	if err := buildShim(ctx, target); err != nil {
		return "", err
	}
	return target, nil
}

// shimTarget is where the library lives: next to its source in a source
// tree whose shim.c is the embedded one, else in the cache directory.
func shimTarget() string {
	if _, file, _, ok := runtime.Caller(0); ok {
		dir := filepath.Join(filepath.Dir(file), "clockshim")
		if src, err := os.ReadFile(filepath.Join(dir, "shim.c")); err == nil && bytes.Equal(src, shimSource) {
			return filepath.Join(dir, "libclockshim.so")
		}
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	sum := sha256.Sum256(shimSource)
	return filepath.Join(cache, "lockcheck", "libclockshim-"+hex.EncodeToString(sum[:6])+".so")
}

// shimFresh says the library at target exists and is not older than the
// source beside it (a library in the cache is named by its source's hash).
func shimFresh(target string) bool {
	lib, err := os.Stat(target)
	if err != nil {
		return false
	}
	src, err := os.Stat(filepath.Join(filepath.Dir(target), "shim.c"))
	return err != nil || !lib.ModTime().Before(src.ModTime())
}

// buildShim compiles the embedded source into target.
func buildShim(ctx context.Context, target string) error {
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "gcc"
		if _, err := exec.LookPath(cc); err != nil {
			cc = "cc"
		}
	}
	if _, err := exec.LookPath(cc); err != nil {
		return fmt.Errorf("%w: no C compiler (%s): install gcc (`make deps`) or set %s", ErrNoShim, cc, EnvClockShim)
	}
	dir := filepath.Dir(target)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("%w: %w", ErrNoShim, err)
	}
	tmp, err := os.MkdirTemp(dir, ".build-")
	if err != nil {
		return fmt.Errorf("%w: %w", ErrNoShim, err)
	}
	defer os.RemoveAll(tmp)
	src := filepath.Join(tmp, "shim.c")
	if err := os.WriteFile(src, shimSource, 0o644); err != nil {
		return fmt.Errorf("%w: %w", ErrNoShim, err)
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	lib := filepath.Join(tmp, "libclockshim.so")
	out, err := exec.CommandContext(ctx, cc, shimCFlags(src, lib)...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%w: %s: %w\n%s", ErrNoShim, cc, err, out)
	}
	if err := os.Rename(lib, target); err != nil {
		return fmt.Errorf("%w: %w", ErrNoShim, err)
	}
	return nil
}

// shimCFlags are the compiler arguments; the Makefile's deps target uses
// the same.
func shimCFlags(src, out string) []string {
	return []string{"-shared", "-fPIC", "-O2", "-Wall", "-o", out, src, "-ldl"}
}
