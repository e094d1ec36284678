package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/faults/redistest"
	"github.com/lockcheck/lockcheck/results"
	"github.com/lockcheck/lockcheck/workloads"
	"github.com/lockcheck/lockcheck/workloads/target"
)

// hardHistoryFile is a history porcupine decides only after about 2^22
// configurations (half a minute here): 22 concurrent failed releases and
// an ok release by a process that never held the lock.
func hardHistoryFile() string {
	var b strings.Builder
	b.WriteString(hdrLine)
	for p := range 22 {
		fmt.Fprintf(&b, `{"op":{"p":%d,"lock":"L","kind":"release","call":%d,"ret":1000,"outcome":"fail"}}`+"\n", p, p)
	}
	// A refused TryLock on a free lock, which only porcupine's search decides
	// (a stray release answered ok is decided at once by the counts).
	b.WriteString(`{"op":{"p":22,"lock":"L","kind":"acquire","call":500,"ret":2000,"wait":1500,"outcome":"fail"}}` + "\n")
	return b.String()
}

// SIGTERM stops `lockcheck check` within about a second: exit 2, saying
// that the check was interrupted, and the run directory left as it was.
func TestCheckStopsOnSIGTERM(t *testing.T) {
	dir := runDir(t, hardHistoryFile())
	hist := filepath.Join(dir, results.HistoryFile)
	before, _ := os.ReadFile(hist)
	cmd := cliCommand(t, "check", dir)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The check starts right after the warning about the missing config:
	// wait for it (the signal handler is installed by then). Wherever the
	// signal finds the check, it must stop (model's
	// TestCheckContextInterrupted stops porcupine mid-search).
	var stderr strings.Builder
	started, read := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			stderr.WriteString(sc.Text() + "\n")
			if strings.Contains(sc.Text(), "using defaults") {
				close(started)
			}
		}
	}()
	select {
	case <-started:
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		<-read
		_ = cmd.Wait()
		t.Fatal("the check did not start within 20s")
	}
	sent := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { <-read; done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		err = <-done
		t.Fatalf("lockcheck check ignored SIGTERM for 20s (%v)", err)
	}
	if took := time.Since(sent); took > 3*time.Second {
		t.Errorf("lockcheck check took %v to stop after SIGTERM", took)
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitInterrupted || !strings.Contains(stderr.String(), "the check was stopped") {
		t.Fatalf("exit %v, want %d and a word about the check's interruption\n%s", err, exitInterrupted, stderr.String())
	}
	after, _ := os.ReadFile(hist)
	if sha256.Sum256(before) != sha256.Sum256(after) {
		t.Error("the history changed")
	}
	if _, err := os.Stat(filepath.Join(dir, results.ResultFile)); err == nil {
		t.Error("an interrupted check wrote result.json")
	}
	if _, err := results.LoadRun(dir); err != nil {
		t.Errorf("the run directory cannot be re-checked: %v", err)
	}
}

// A check that runs out of --check-timeout decides nothing: exit 2, the
// cause named.
func TestCheckTimeoutExits2(t *testing.T) {
	code, stdout, stderr := lockcheck(t, "check", "--check-timeout", "100ms", runDir(t, hardHistoryFile()))
	if code != exitUsage || !strings.Contains(stderr, "timed out after 100ms") {
		t.Fatalf("exit %d, want %d and the cause\n%s\n%s", code, exitUsage, stdout, stderr)
	}
}

// fillingWriter takes room bytes, then fails like a full disk.
type fillingWriter struct{ room int }

func (w *fillingWriter) Write(b []byte) (int, error) {
	if len(b) > w.room {
		return 0, &os.PathError{Op: "write", Path: "history.jsonl", Err: syscall.ENOSPC}
	}
	w.room -= len(b)
	return len(b), nil
}

// A run whose history could not be written exits 2 (never 1, a violation
// that did not happen), naming the cause.
func TestHistoryWriteFailureExits2(t *testing.T) {
	srv := redistest.Start(t, faults.ServerConfig{})
	deps := target.FromOptions(srv.Options, "test").Deps()
	deps.History = &fillingWriter{room: 4096} // the disk fills mid-run
	cfg := workloads.DefaultRunConfig()
	cfg.Subject, cfg.Workload, cfg.Duration, cfg.Seed = "reentrant", "counter", 300*time.Millisecond, 1
	var stderr bytes.Buffer
	sum, _, degraded, err := runIn(t.Context(), &env{stdout: &bytes.Buffer{}, stderr: &stderr}, cfg, t.TempDir(), deps)
	if err != nil || degraded == nil {
		t.Fatalf("runIn: degraded %v, err %v", degraded, err)
	}
	if code := exitFor([]results.Summary{sum}); code != exitUsage {
		t.Errorf("exit %d, want %d", code, exitUsage)
	}
	if !strings.Contains(stderr.String(), "history write failed: no space left on device") {
		t.Errorf("stderr does not name the cause:\n%s", stderr.String())
	}
}

// `run --check-timeout 1ns` decides nothing: exit 2, the cause named.
func TestRunCheckTimeoutExits2(t *testing.T) {
	srv := redistest.Start(t, faults.ServerConfig{})
	t.Setenv(envRedisPassword, srv.Password())
	code, stdout, stderr := lockcheck(t, "run", "--redis", srv.Addr(), "--subject", "reentrant", "--workload", "counter",
		"--duration", "300ms", "--seed", "1", "--check-timeout", "1ns", "--out", t.TempDir())
	if code != exitUsage || !strings.Contains(stderr, "timed out after 1ns") {
		t.Fatalf("exit %d, want %d and the cause\n%s\n%s", code, exitUsage, stdout, stderr)
	}
}

// A run that finished and whose check alone was interrupted says so,
// never that its history is a prefix.
func TestReportCheckInterrupted(t *testing.T) {
	var stderr bytes.Buffer
	sum := results.Summary{}
	sum.Report.Stopped = "interrupted"
	reportInterrupted(&env{stderr: &stderr}, "run", []string{"DIR"}, []results.Summary{sum})
	if s := stderr.String(); !strings.Contains(s, "interrupted while checking") || strings.Contains(s, "prefix") {
		t.Errorf("message: %s", s)
	}
}

// An interrupted nightly's matrix.md says the cut-short cell was
// interrupted, not merely "not as expected".
func TestInterruptedNightlyCellSaysSo(t *testing.T) {
	if testing.Short() {
		t.Skip("starts redis-server")
	}
	out := t.TempDir()
	args := append(append([]string(nil), tinyNightly...), "--out", out)
	code, stdout, stderr := lockcheckUntil(t, 1500*time.Millisecond, args...)
	if code != exitInterrupted {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, exitInterrupted, stdout, stderr)
	}
	mds, _ := filepath.Glob(filepath.Join(out, "runs", "nightly", "*", "matrix.md"))
	if len(mds) != 1 {
		t.Fatalf("matrix.md files: %v", mds)
	}
	md, _ := os.ReadFile(mds[0])
	if !strings.Contains(string(md), "/1: interrupted") || !strings.Contains(stderr, "interrupted") {
		t.Errorf("matrix.md does not say the cell was interrupted:\n%s\n%s", md, stderr)
	}
}

// A refused --redis says so once, in lockcheck's words: go-redis's own
// log line ("redis: … pool.go: … failed to dial") is not printed.
func TestRefusedRedisOneMessage(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	var stderr bytes.Buffer
	cmd := cliCommand(t, "run", "--redis", addr, "--subject", "reentrant", "--duration", "1s", "--out", t.TempDir())
	cmd.Stderr = &stderr
	err = cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitUsage {
		t.Fatalf("exit %v, want %d\n%s", err, exitUsage, stderr.String())
	}
	if s := stderr.String(); !strings.Contains(s, "unreachable") || strings.Contains(s, "pool.go") || strings.Contains(s, "redis: 20") {
		t.Errorf("stderr should say unreachable once, without go-redis's log line:\n%s", s)
	}
	before, _ := redisLog.lines()
	lockcheck(t, "run", "--redis", addr, "--subject", "reentrant", "--duration", "1s", "--out", t.TempDir())
	if n, last := redisLog.lines(); n == before {
		t.Errorf("go-redis's log line did not reach redisLog (last: %q)", last)
	}
}
