package toxiproxy_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/faults/toxiproxy"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// Importing the package makes faults.StartLink start toxiproxy proxies.
// (The faults package's link tests run every fault on this kind too.)
func TestStartLinkIsToxiproxy(t *testing.T) {
	l, err := faults.StartLink("c0", "127.0.0.1:1")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	if _, ok := l.(*toxiproxy.Proxy); !ok {
		t.Fatalf("StartLink started a %T, want *toxiproxy.Proxy", l)
	}
}
