package bench

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/lockcheck/lockcheck/workloads/catalog"
	"github.com/lockcheck/lockcheck/workloads/catalog/gopeers"
)

// TestMain registers the Go peers, which the tests benchmark too, and fails
// the package's tests if a worker, watchdog or go-redis goroutine outlives
// them.
func TestMain(m *testing.M) {
	if err := gopeers.Register(catalog.Subjects); err != nil { // the tests run the Go peers too, as the CLI does
		panic(err)
	}
	goleak.VerifyTestMain(m)
}
