package scenario

import (
	"context"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"

	"github.com/lockcheck/lockcheck/workloads/subject"
)

// Shard is the I-th of N parts of a matrix (1 <= I <= N). The zero Shard
// (N == 0) is the whole matrix.
//
// A cell's shard is a hash of its scenario, subject and seed, never its
// position: adding seeds, scenarios or subjects does not move any other cell
// to another shard, and the N shards of a matrix partition its cells (every
// cell is in exactly one).
type Shard struct {
	I, N int
}

// ParseShard parses "I/N" (1 <= I <= N); "" is the whole matrix.
func ParseShard(s string) (Shard, error) {
	if s == "" {
		return Shard{}, nil
	}
	is, ns, ok := strings.Cut(s, "/")
	if !ok {
		return Shard{}, fmt.Errorf("shard %q: want I/N, e.g. 1/4", s)
	}
	i, err1 := strconv.Atoi(strings.TrimSpace(is))
	n, err2 := strconv.Atoi(strings.TrimSpace(ns))
	switch {
	case err1 != nil || err2 != nil:
		return Shard{}, fmt.Errorf("shard %q: I and N must be integers (I/N, e.g. 1/4)", s)
	case n < 1:
		return Shard{}, fmt.Errorf("shard %q: N must be at least 1", s)
	case i < 1 || i > n:
		return Shard{}, fmt.Errorf("shard %q: I must be between 1 and N=%d (shards count from 1)", s, n)
	}
	return Shard{I: i, N: n}, nil
}

// String is "I/N", or "" for the whole matrix.
func (s Shard) String() string {
	if s.N == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.I, s.N)
}

// Has reports whether the cell scenario × subject × seed belongs to s.
func (s Shard) Has(scenario, subject string, seed int64) bool {
	if s.N <= 1 {
		return true
	}
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%s\x00%d", scenario, subject, seed)
	return int(h.Sum64()%uint64(s.N)) == s.I-1
}

// ShardMatrix is Matrix restricted to the cells of sh, in Matrix's order.
// Cells of other shards are neither run nor returned.
func ShardMatrix(ctx context.Context, sh Shard, scenarios []Scenario, subjects []subject.Subject, seeds []int64, run RunCell, done func(Outcome)) []Outcome {
	return matrix(ctx, func(c Cell) bool { return sh.Has(c.Scenario.Name, c.Subject.Name, c.Seed) }, scenarios, subjects, seeds, run, done)
}
