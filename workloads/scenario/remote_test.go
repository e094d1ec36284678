package scenario

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/faults/redistest"
	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads/catalog"
)

// TestRemotePartitionThroughToxiproxy runs a remote scenario against a
// redis-server given by address, its network faults made by a toxiproxy
// server driven over HTTP.
func TestRemotePartitionThroughToxiproxy(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: starts redis-server")
	}
	s := redistest.Start(t, faults.ServerConfig{})
	rem := Remote{Redis: s.Options(), Toxiproxy: redistest.ToxiproxyAPI(t), Desc: "test redis " + s.Addr()}
	sc, err := RemoteScenario("remote-partition-short", rem)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := sc.Run(ctx, Options{Subject: "reentrant", Seed: 1, CheckTimeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if fs := injected(res.History); len(fs) == 0 || fs[0].Name != "proxy-blackhole" {
		t.Fatalf("fault windows %+v, want proxy black holes", res.History.Faults)
	}
	if w := res.CheckOptions.Wire; w == nil || !slices.ContainsFunc(w.Events, func(e model.WireEvent) bool { return e.Kind == model.WireCmd }) {
		t.Fatal("a remote single Redis's run recorded no wire trace (its clients go through a Wire each)")
	}
	subj, _ := catalog.Subjects.Lookup("reentrant")
	if ok, why := sc.Expectation(subj).Match(res.Report); !ok {
		t.Fatalf("remote-partition-short/reentrant: %s\n%s", why, res.Report)
	}
}

func TestRemoteScenarioBinding(t *testing.T) {
	if _, err := RemoteScenario("no-faults", Remote{Redis: &redis.Options{Addr: "10.0.0.1:6379"}}); !errors.Is(err, ErrNotRemote) {
		t.Fatalf("catalog scenario bound as remote: %v", err)
	}
	if _, err := RemoteScenario("remote-no-faults", Remote{}); err == nil {
		t.Fatal("a Remote naming no deployment was accepted")
	}
	if _, err := RemoteScenario("remote-no-faults", Remote{Cluster: &redis.ClusterOptions{}, Toxiproxy: "h:8474"}); err == nil {
		t.Fatal("toxiproxy with a Cluster was accepted")
	}
	for _, sc := range RemoteCatalog() {
		if sc.Doc == "" || sc.Topology == nil {
			t.Errorf("%s: no doc or topology", sc.Name)
		}
	}
}
