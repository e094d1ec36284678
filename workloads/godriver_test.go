package workloads

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/impl/driver"
	"github.com/lockcheck/lockcheck/workloads/catalog"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// goDriverEnv makes the test binary a driver serving the reentrant lock.
const goDriverEnv = "LOCKCHECK_TEST_GO_DRIVER"

// goDriver returns a driver subject served by this test binary: the
// reentrant lock over the protocol, misbehaving as mode says ("ok", or
// "hang@N", "crash@N", "garbage@N": from the N-th request of a process on).
func goDriver(name, mode string) subject.Subject {
	return catalog.Driver{
		Name: name, Doc: "the reentrant lock served by the test binary (" + mode + ")",
		Command: []string{os.Args[0]},
		// GORACE: a race-enabled binary otherwise sleeps 1 s at exit.
		Env:          []string{goDriverEnv + "=" + mode, "GORACE=atexit_sleep_ms=0"},
		Capabilities: []string{driver.CapReentrant, driver.CapWatchdog},
	}.Subject()
}

func serveGoDriver(mode string) int {
	in := io.Reader(os.Stdin)
	if what, n, ok := strings.Cut(mode, "@"); ok {
		after, _ := strconv.Atoi(n)
		in = &misbehave{r: os.Stdin, what: what, after: after}
	}
	err := driver.Serve(context.Background(), in, os.Stdout, driver.Served{
		Banner: driver.Banner{Driver: "go-test", Version: mode, Capabilities: []string{driver.CapReentrant, driver.CapWatchdog}},
		Open: func(watchdog time.Duration, seed int64) impl.MakerFunc {
			return impl.ReentrantMaker(impl.WithWatchdogTimeout(watchdog))
		},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "go-test driver:", err)
		return 1
	}
	return 0
}

// misbehave passes requests through until the after-th, then hangs,
// crashes or prints garbage instead of answering.
type misbehave struct {
	r     io.Reader
	what  string
	after int
	seen  int
}

func (m *misbehave) Read(p []byte) (int, error) {
	n, err := m.r.Read(p)
	m.seen += strings.Count(string(p[:n]), "\n")
	if m.seen < m.after {
		return n, err
	}
	switch m.what {
	case "hang":
		time.Sleep(time.Hour)
	case "crash":
		fmt.Fprintln(os.Stderr, "go-test driver: crashing on purpose")
		os.Exit(3)
	case "garbage":
		fmt.Fprintln(os.Stdout, "panic: this is not JSON")
		time.Sleep(time.Hour)
	}
	return n, err
}
