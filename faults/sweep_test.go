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
