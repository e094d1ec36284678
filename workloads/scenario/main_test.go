package scenario

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/lockcheck/lockcheck/workloads/catalog"
	"github.com/lockcheck/lockcheck/workloads/catalog/gopeers"
)

// TestMain serves a Go subject when a process pause started this binary as
// one (catalog.ServeEnv); otherwise it runs the tests and fails them if a
// goroutine outlives them.
func TestMain(m *testing.M) {
	if err := gopeers.Register(catalog.Subjects); err != nil { // the tests run the Go peers too, as the CLI does
		panic(err)
	}
	reg, err := catalog.Subjects.With(catalog.MutantBase()) // the tests run the mutants' base too
	if err != nil {
		panic(err)
	}
	catalog.ServeFromEnv(reg)
	goleak.VerifyTestMain(m)
}
