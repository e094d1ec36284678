package rediscover

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/lockcheck/lockcheck/workloads/catalog"
)

// TestMain serves a Go subject when a run started this binary as one
// (catalog.ServeEnv: the plain mutants run only so); otherwise it runs the
// tests and fails them if a goroutine outlives them.
func TestMain(m *testing.M) {
	catalog.ServeFromEnv(catalog.Subjects)
	goleak.VerifyTestMain(m)
}
