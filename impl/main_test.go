package impl

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine (watchdog, pub/sub
// loop, go-redis pool) is still running after them.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
