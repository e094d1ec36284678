package scenario

import (
	"testing"
)

func TestParseShard(t *testing.T) {
	for _, bad := range []string{"0/4", "5/4", "1/0", "x", "1/x", "-1/2", "1/-2", "/", "3"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("ParseShard(%q): no error", bad)
		}
	}
	for in, want := range map[string]Shard{"": {}, "1/1": {1, 1}, "2/4": {2, 4}, "4/4": {4, 4}} {
		got, err := ParseShard(in)
		if err != nil || got != want {
			t.Errorf("ParseShard(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
}

// TestShardPartition: the N shards partition the cells, each cell's shard
// does not change when seeds are added, and no shard of a realistic matrix
// is far from 1/N.
func TestShardPartition(t *testing.T) {
	const n = 4
	counts := make([]int, n)
	for _, sc := range Names() {
		for _, subj := range []string{"reentrant", "fair", "fenced", "simple"} {
			for seed := int64(1); seed <= 20; seed++ {
				owners := 0
				for i := 1; i <= n; i++ {
					if (Shard{i, n}).Has(sc, subj, seed) {
						owners++
						counts[i-1]++
					}
				}
				if owners != 1 {
					t.Fatalf("%s/%s/%d is in %d shards", sc, subj, seed, owners)
				}
			}
		}
	}
	total := 0
	for _, c := range counts {
		total += c
	}
	for i, c := range counts {
		if c < total/n/2 {
			t.Errorf("shard %d/%d has %d of %d cells: %v", i+1, n, c, total, counts)
		}
	}
	if !(Shard{}).Has("x", "y", 1) || !(Shard{1, 1}).Has("x", "y", 1) {
		t.Error("the whole matrix lacks a cell")
	}
}
