package workloads

import (
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/lockcheck/lockcheck/workloads/catalog"
	"github.com/lockcheck/lockcheck/workloads/catalog/gopeers"
)

// TestMain runs the test binary as a Go driver when a test starts it as one
// (goDriverEnv, or catalog.ServeEnv for a served subject); otherwise it runs the tests and fails them if a goroutine
// outlives them.
func TestMain(m *testing.M) {
	if mode := os.Getenv(goDriverEnv); mode != "" {
		os.Exit(serveGoDriver(mode))
	}
	if err := gopeers.Register(catalog.Subjects); err != nil { // the tests run the Go peers too, as the CLI does
		panic(err)
	}
	reg, err := catalog.Subjects.With(catalog.MutantBase()) // the mutants run served, their base too
	if err != nil {
		panic(err)
	}
	catalog.ServeFromEnv(reg)
	goleak.VerifyTestMain(m)
}
