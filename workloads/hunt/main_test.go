package hunt

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/lockcheck/lockcheck/workloads/catalog"
	"github.com/lockcheck/lockcheck/workloads/catalog/gopeers"
)

// TestMain serves a Go subject when a run started this binary as one
// (catalog.ServeEnv: the plain mutants run only so); otherwise it runs the
// tests and fails them if a goroutine outlives them.
func TestMain(m *testing.M) {
	if err := gopeers.Register(catalog.Subjects); err != nil { // the tests run the Go peers too, as the CLI does
		panic(err)
	}
	catalog.ServeFromEnv(catalog.Subjects)
	goleak.VerifyTestMain(m)
}
