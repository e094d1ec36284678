package catalog

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ErrBuildFailed is returned, wrapped with the build's last output, when a
// driver's build script fails.
var ErrBuildFailed = errors.New("the driver's build failed")

// ErrCannotInstall is returned when a driver's build script exits with
// BuildSkipped: what the driver needs cannot be installed here (no apt-get,
// or a toolchain too old); it names what to install.
var ErrCannotInstall = errors.New("the driver cannot be installed here")

// BuildSkipped is the exit status of a build script that cannot install
// what its driver needs here (PKG_SKIPPED in scripts/pkg.sh).
const BuildSkipped = 3

// A Builder runs a driver's build script (Driver.Build) in the driver's
// folder the first time a subject of the driver is opened while its
// Installed check fails. One build of a folder runs at a time, in this
// process and across processes (an exclusive flock on the folder); a
// build waiting for another re-checks Installed before it runs.
type Builder struct {
	// Progress receives a line when a build starts and when it ends, and
	// the script's own output (its progress lines; a failing step's log).
	Progress io.Writer
	// Timeout bounds one build, waiting for another included (default
	// DefaultBuildTimeout).
	Timeout time.Duration
}

// DefaultBuildTimeout bounds a build: Maven's first download of a Java
// driver's artifacts takes minutes.
const DefaultBuildTimeout = 20 * time.Minute

// defaultBuilder builds the drivers a subject opens, with progress on
// stderr.
var defaultBuilder = Builder{Progress: os.Stderr}

// Ready returns nil when d can run in dir (Installed passes, or d has no
// check); else, when d has a Build script, builds it and checks again. Its
// errors wrap Installed's, ErrBuildFailed, ErrCannotInstall or the
// context's error.
func (b Builder) Ready(ctx context.Context, d Driver, dir string) error {
	if d.Installed == nil {
		return nil
	}
	err := d.Installed(dir)
	if err == nil || len(d.Build) == 0 {
		return err
	}
	timeout := b.Timeout
	if timeout <= 0 {
		timeout = DefaultBuildTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	unlock, err := lockDir(ctx, dir)
	if err != nil {
		return fmt.Errorf("waiting to build %s: %w", dir, err)
	}
	defer unlock()
	if d.Installed(dir) == nil { // built meanwhile
		return nil
	}
	if err := b.run(ctx, d, dir); err != nil {
		return err
	}
	if err := d.Installed(dir); err != nil {
		return fmt.Errorf("built (%s in %s), but still: %w", strings.Join(d.Build, " "), dir, err)
	}
	return nil
}

// run runs d's build script in dir, its output to Progress, in a process
// group of its own that a cancelled ctx kills whole.
func (b Builder) run(ctx context.Context, d Driver, dir string) error {
	progress := b.Progress
	if progress == nil {
		progress = io.Discard
	}
	script := strings.Join(d.Build, " ")
	fmt.Fprintf(progress, "building the driver of %s (%s in %s), once ...\n", d.Name, script, dir)
	start := time.Now()
	var tail tailBuffer
	cmd := exec.CommandContext(ctx, d.Build[0], d.Build[1:]...)
	cmd.Dir = dir
	cmd.Stdout = io.MultiWriter(progress, &tail)
	cmd.Stderr = cmd.Stdout
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		fmt.Fprintf(progress, "built the driver of %s in %s\n", d.Name, time.Since(start).Round(time.Second))
		return nil
	case ctx.Err() != nil:
		return fmt.Errorf("building (%s in %s): %w", script, dir, ctx.Err())
	case errors.As(err, &exit) && exit.ExitCode() == BuildSkipped:
		return fmt.Errorf("%w: %s", ErrCannotInstall, tail.String())
	}
	return fmt.Errorf("%w (%s in %s: %v): %s", ErrBuildFailed, script, dir, err, tail.String())
}

// tailBuffer keeps the last tailSize bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

const tailSize = 2048

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - tailSize; over > 0 {
		t.buf = t.buf[over:]
	}
	return len(p), nil
}

// String is the kept output, trimmed.
func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(bytes.TrimSpace(t.buf))
}
