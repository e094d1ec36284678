package bench

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if a worker, watchdog or go-redis
// goroutine outlives them.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
