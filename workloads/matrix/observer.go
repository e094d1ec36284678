package matrix

import (
	"github.com/lockcheck/lockcheck/results"
	"github.com/lockcheck/lockcheck/workloads/scenario"
)

// Observer hears what a matrix run does, in the order it happens; Run
// itself prints nothing. Its methods are called from the goroutine that
// called Run, one at a time. Embed NopObserver to hear only some of it.
type Observer interface {
	// Started: the matrix's directory is ready and its first cell is next.
	Started(Start)
	// Finished: a cell ran (or was skipped) and was judged; its reruns, if
	// it gets any, come next.
	Finished(results.MatrixCell)
	// Rerunning: the k-th rerun of the cell of key c starts, from its
	// command.
	Rerunning(c results.MatrixCell, k int)
	// NotSaved: matrix.json could not be rewritten after a cell (the run
	// goes on; the final write will try again).
	NotSaved(err error)
}

// Start is what a matrix run is about to do.
type Start struct {
	Kind      string
	Scenarios int
	Subjects  int
	Seeds     []int64
	Shard     scenario.Shard
	// Cells is how many cells the shard holds, skipped ones included and
	// reruns not: Finished is heard once for each (fewer when ctx ends).
	Cells int
	// Dir is the matrix's directory: matrix.json, matrix.md, the runs.
	Dir string
}

// NopObserver ignores everything.
type NopObserver struct{}

func (NopObserver) Started(Start)                     {}
func (NopObserver) Finished(results.MatrixCell)       {}
func (NopObserver) Rerunning(results.MatrixCell, int) {}
func (NopObserver) NotSaved(error)                    {}
