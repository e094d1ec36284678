package workloads

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

// TestMain runs the test binary as a Go driver when a test starts it as one
// (goDriverEnv); otherwise it runs the tests and fails them if a goroutine
// outlives them.
func TestMain(m *testing.M) {
	if mode := os.Getenv(goDriverEnv); mode != "" {
		os.Exit(serveGoDriver(mode))
	}
	goleak.VerifyTestMain(m)
}
