package faults_test

import (
	"errors"
	"testing"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/faults/servers"
)

// TestTopologiesOnEachServer forms a Sentinel topology and a Cluster on
// every server of the --server axis this machine has (make deps installs
// them), Redis 6.2's older directives included, and writes through each.
func TestTopologiesOnEachServer(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: starts Sentinel and Cluster topologies (skipped with -short)")
	}
	for _, name := range servers.Names {
		t.Run(name, func(t *testing.T) {
			srv, err := servers.Resolve(t.Context(), name)
			if errors.Is(err, servers.ErrMissing) {
				t.Skipf("skipping: %v", err)
			}
			if err != nil {
				t.Fatal(err)
			}
			tmpl := faults.ServerConfig{Bin: srv.Bin}
			top := startSentinel(t, faults.SentinelConfig{Replicas: 1, Sentinels: 1, Server: tmpl})
			fo := top.NewFailoverClient()
			defer fo.Close()
			if err := fo.Set(t.Context(), "k", srv.Version, 0).Err(); err != nil {
				t.Errorf("%s: write through Sentinel: %v", srv, err)
			}
			c := startCluster(t, faults.ClusterConfig{Masters: 3, ReplicasPerMaster: -1, Server: tmpl})
			cc := c.NewClusterClient()
			defer cc.Close()
			for _, k := range []string{"a", "b", "c", "d"} {
				if err := cc.Set(t.Context(), k, srv.Version, 0).Err(); err != nil {
					t.Errorf("%s: write %s through the cluster: %v", srv, k, err)
				}
			}
		})
	}
}
