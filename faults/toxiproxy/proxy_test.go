package toxiproxy_test

import (
	"fmt"
	"testing"

	"go.uber.org/goleak"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/faults/toxiproxy"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// Importing the package changes nothing; once Register ran,
// faults.StartLink starts toxiproxy proxies. (The faults package's link
// tests run every fault on this kind too.)
func TestStartLinkIsToxiproxy(t *testing.T) {
	start := func(want string) {
		t.Helper()
		l, err := faults.StartLink("c0", "127.0.0.1:1")
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = l.Close() }()
		if got := fmt.Sprintf("%T", l); got != want {
			t.Errorf("StartLink started a %s, want %s", got, want)
		}
	}
	start("*faults.Proxy")
	toxiproxy.Register()
	t.Cleanup(func() { faults.RegisterLocalLink(nil) })
	start("*toxiproxy.Proxy")
}
