package driver

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

// TestMain runs the test binary as a fake driver when the tests start it as
// one (LOCKCHECK_TEST_DRIVER names the behaviour); otherwise it runs the
// tests and fails them if any goroutine outlives them.
func TestMain(m *testing.M) {
	switch mode := os.Getenv(testDriverEnv); mode {
	case "":
	case "owners":
		os.Exit(fakeOwnersDriver(os.Stdin, os.Stdout))
	case "permits", "permits-noid":
		os.Exit(fakePermitsDriver(mode, os.Stdin, os.Stdout))
	default:
		os.Exit(fakeDriver(mode, os.Stdin, os.Stdout, os.Stderr))
	}
	goleak.VerifyTestMain(m)
}
