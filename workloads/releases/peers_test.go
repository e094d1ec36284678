package releases

import (
	"testing"

	"github.com/lockcheck/lockcheck/workloads/catalog"
	"github.com/lockcheck/lockcheck/workloads/catalog/gopeers"
)

// TestMain registers the Go peers (redsync...), subjects of the catalog
// only where a binary wires them in, as the CLI does.
func TestMain(m *testing.M) {
	if err := gopeers.Register(catalog.Subjects); err != nil {
		panic(err)
	}
	m.Run()
}
