package release

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// lockPoll is how often a build waiting for another one's lock retries.
const lockPoll = 200 * time.Millisecond

// sleepCtx sleeps d or until ctx is done (its error then).
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Run runs argv in dir with env added, bounded by ctx; its output is kept
// and, when it fails, the last lines of it are in the error.
func Run(ctx context.Context, dir string, env []string, argv ...string) error {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %w%s", strings.Join(argv, " "), err, tail(out.String(), 12))
	}
	return nil
}

// tail returns the last n lines of s, each on a line of its own after
// a newline ("" for none).
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	if len(lines) == 1 && lines[0] == "" {
		return ""
	}
	return "\n  " + strings.Join(lines, "\n  ")
}
