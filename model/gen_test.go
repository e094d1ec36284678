package model

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestGenerateLargeHistory writes a simulated valid history (sections and
// fencing tokens included, 2% info ops, $LOCKCHECK_GEN_LOCKS locks, default
// 64) of $LOCKCHECK_GEN_OPS ops to
// $LOCKCHECK_GEN_DIR/history.jsonl (LOCKCHECK_GEN_BROKEN=double-grant: with
// one double grant injected, so invalid), for measuring `lockcheck check` on large
// inputs without committing them:
//
//	LOCKCHECK_GEN_DIR=/tmp/big LOCKCHECK_GEN_OPS=1000000 go test -run TestGenerateLargeHistory ./model/
//	/usr/bin/time -v ./bin/lockcheck check /tmp/big
//
// It is skipped unless both variables are set.
func TestGenerateLargeHistory(t *testing.T) {
	dir, n := os.Getenv("LOCKCHECK_GEN_DIR"), os.Getenv("LOCKCHECK_GEN_OPS")
	if dir == "" || n == "" {
		t.Skip("set LOCKCHECK_GEN_DIR and LOCKCHECK_GEN_OPS to generate a history")
	}
	ops, err := strconv.Atoi(n)
	if err != nil {
		t.Fatal(err)
	}
	locks := 64
	if v := os.Getenv("LOCKCHECK_GEN_LOCKS"); v != "" {
		if locks, err = strconv.Atoi(v); err != nil {
			t.Fatal(err)
		}
	}
	r := rand.New(rand.NewPCG(uint64(ops), 1))
	h, ws := simulate(r, simConfig{locks: locks, procs: 8, ops: ops, infoRate: 0.02, sections: true})
	if os.Getenv("LOCKCHECK_GEN_BROKEN") == "double-grant" {
		var ok bool
		if h, ok = injectDoubleGrant(r, h, ws); !ok {
			t.Fatal("nothing to inject a double grant into")
		}
	}
	h.Header.Meta = map[string]string{"generator": "TestGenerateLargeHistory"}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeHistoryFile(t, filepath.Join(dir, "history.jsonl"), h)
}
