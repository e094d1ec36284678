package workloads

import (
	"flag"
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/lockcheck/lockcheck/workloads/catalog"
	"github.com/lockcheck/lockcheck/workloads/catalog/gopeers"
)

// TestMain runs the test binary as a Go driver when a test starts it as one
// (goDriverEnv, or catalog.ServeEnv for a served subject); otherwise it runs the tests and fails them if a goroutine
// outlives them. Its parallel tests run parallelTests at a time unless -parallel says otherwise.
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
	defaultParallel()
	goleak.VerifyTestMain(m)
}

// parallelTests is how many of the package's parallel tests run at once by
// default. Each has a redis-server of its own and mostly waits on driver
// processes and run timers: at go test's default (GOMAXPROCS, 2 here) the
// package was make test's long pole, its last minutes on a CPU the other
// packages had left.
const parallelTests = 4

// defaultParallel sets -test.parallel to parallelTests when the command
// line did not set it.
func defaultParallel() {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		if err := flag.Set("test.parallel", fmt.Sprint(parallelTests)); err != nil {
			panic(err)
		}
	}
}
