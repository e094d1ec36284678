package faults

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// deadPid returns the pid of a process that has exited.
func deadPid(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// A SIGKILLed run's nftables table (with its DROP rules) and temporary
// directories are removed by SweepStale; a live process's are kept.
func TestSweepStale(t *testing.T) {
	dead := deadPid(t)
	tmp := t.TempDir()
	mk := func(name string) string {
		p := filepath.Join(tmp, name)
		if err := os.MkdirAll(filepath.Join(p, "sub"), 0o700); err != nil {
			t.Fatal(err)
		}
		return p
	}
	deadRedis := mk(fmt.Sprintf("lockcheck-redis-%d-123", dead))
	deadSentinel := mk(fmt.Sprintf("lockcheck-sentinel-%d-456", dead))
	live := mk(fmt.Sprintf("lockcheck-redis-%d-789", os.Getpid()))
	other := mk("lockcheck-redis-1712910918") // no pid: not ours to judge

	var deadTable string
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	fw, fwErr := NewFirewall(ctx)
	if fwErr == nil {
		defer fw.Close(context.Background())
		deadTable = fmt.Sprintf("lockcheck_%d_1", dead)
		script := fmt.Sprintf("add table inet %[1]s\nadd chain inet %[1]s input { type filter hook input priority 0; policy accept; }\n"+
			"add rule inet %[1]s input ip saddr 127.9.9.1 ip daddr 127.9.9.2 drop\n", deadTable)
		if _, err := nft(ctx, script, "-f", "-"); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _, _ = nft(context.Background(), "", "delete", "table", "inet", deadTable) })
	} else {
		t.Logf("nftables part skipped: %v", fwErr)
	}

	sw, err := SweepStale(ctx, tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{deadRedis, deadSentinel} {
		if _, err := os.Stat(p); !os.IsNotExist(err) || !slices.Contains(sw.Dirs, p) {
			t.Errorf("dead run's dir %s not swept (%v; swept %v)", p, err, sw.Dirs)
		}
	}
	for _, p := range []string{live, other} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("SweepStale removed %s: %v", p, err)
		}
	}
	if fwErr != nil {
		return
	}
	out, _ := nft(ctx, "", "list", "tables", "inet")
	if strings.Contains(out, deadTable+"\n") || !slices.Contains(sw.Tables, deadTable) {
		t.Errorf("dead run's table %s not swept (swept %v):\n%s", deadTable, sw.Tables, out)
	}
	if !strings.Contains(out, fw.Table()) || slices.Contains(sw.Tables, fw.Table()) {
		t.Errorf("SweepStale deleted the live table %s:\n%s", fw.Table(), out)
	}
}

// A dead run's leftovers are swept even while a new process has its pid
// (the names carry the owner's start time too), and a live process's own
// names are never taken by another: they differ in the start time.
func TestSweepStaleReusedPid(t *testing.T) {
	me := self()
	if me.start == 0 {
		t.Skip("no /proc start times here")
	}
	tmp := t.TempDir()
	mk := func(name string) string {
		p := filepath.Join(tmp, name)
		if err := os.MkdirAll(p, 0o700); err != nil {
			t.Fatal(err)
		}
		return p
	}
	reused := mk(fmt.Sprintf("lockcheck-redis-%d-%d-123", me.pid, me.start+1)) // a dead run's, same pid
	mine := mk(fmt.Sprintf("lockcheck-redis-%d-%d-456", me.pid, me.start))
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	var reusedTable string
	fw, fwErr := NewFirewall(ctx)
	if fwErr == nil {
		defer fw.Close(context.Background())
		if want := fmt.Sprintf("lockcheck_%d_%d_", me.pid, me.start); !strings.HasPrefix(fw.Table(), want) {
			t.Errorf("table %s is not named by its owner's pid and start time (%s…)", fw.Table(), want)
		}
		reusedTable = fmt.Sprintf("lockcheck_%d_%d_1", me.pid, me.start+1)
		script := fmt.Sprintf("add table inet %[1]s\nadd chain inet %[1]s input { type filter hook input priority 0; policy accept; }\n"+
			"add rule inet %[1]s input ip saddr 127.9.9.3 ip daddr 127.9.9.4 drop\n", reusedTable)
		if _, err := nft(ctx, script, "-f", "-"); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _, _ = nft(context.Background(), "", "delete", "table", "inet", reusedTable) })
	} else {
		t.Logf("nftables part skipped: %v", fwErr)
	}
	sw, err := SweepStale(ctx, tmp)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(reused); !os.IsNotExist(err) {
		t.Errorf("the dead run's dir %s was kept because its pid is in use (swept %v)", reused, sw.Dirs)
	}
	if _, err := os.Stat(mine); err != nil {
		t.Errorf("SweepStale removed this process's dir: %v", err)
	}
	if fwErr == nil && (!slices.Contains(sw.Tables, reusedTable) || slices.Contains(sw.Tables, fw.Table())) {
		t.Errorf("swept tables %v: want %s and never %s", sw.Tables, reusedTable, fw.Table())
	}
}

func TestStartTime(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	a, err := startTime(os.Getpid())
	if err != nil || a == 0 {
		t.Fatalf("start time %d, %v", a, err)
	}
	cmd := exec.Command("sleep", "5")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	b, err := startTime(cmd.Process.Pid)
	if err != nil || b < a {
		t.Errorf("a child started at %d (%v), before its parent (%d)", b, err, a)
	}
	if (owner{pid: cmd.Process.Pid, start: b}).gone() || !(owner{pid: cmd.Process.Pid, start: b + 1}).gone() {
		t.Error("gone() does not tell the running child from another process with its pid")
	}
}
