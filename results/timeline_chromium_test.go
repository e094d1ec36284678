//go:build browser

package results

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// chromium is the path of a Chromium (or Chrome) binary: $CHROMIUM, or one
// on $PATH, else Debian's chromium installed with apt-get (as root).
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	names := []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	if _, err := exec.LookPath("apt-get"); err != nil || os.Geteuid() != 0 {
		t.Fatal("no chromium on PATH, and it cannot be installed here (apt-get as root): set CHROMIUM")
	}
	t.Log("installing chromium (apt-get install -y chromium)")
	install := exec.Command("apt-get", "install", "-y", "--no-install-recommends", "chromium")
	install.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("apt-get install chromium: %v\n%s", err, out)
	}
	p, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// browser is one headless Chromium, driven through its DevTools HTTP
// endpoint (no WebSocket needed).
type browser struct {
	base    string // http://127.0.0.1:PORT
	version string
	client  *http.Client
}

// startBrowser starts a headless Chromium on a blank page with a profile of
// its own, in a process group of its own, and stops it when the test ends:
// SIGTERM, then after 5 s SIGKILL to the group; then the profile goes.
func startBrowser(t *testing.T, bin string) *browser {
	t.Helper()
	profile, err := os.MkdirTemp("", "lockcheck-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--window-size=1400,900",
		"--user-data-dir="+profile, "--remote-debugging-port=0", "about:blank")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // what the browser left of its group
		for range 50 {
			if os.RemoveAll(profile) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
	port, err := devToolsPort(profile)
	if err != nil {
		t.Fatal(err)
	}
	b := &browser{base: "http://127.0.0.1:" + port, client: &http.Client{Timeout: 10 * time.Second}}
	var v struct{ Browser string }
	if err := b.get("/json/version", &v); err != nil {
		t.Fatal(err)
	}
	b.version = v.Browser
	return b
}

// devToolsPort waits for Chromium to write its DevTools port into the
// profile (--remote-debugging-port=0 picks a free one).
func devToolsPort(profile string) (string, error) {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		b, err := os.ReadFile(filepath.Join(profile, "DevToolsActivePort"))
		if port, _, ok := strings.Cut(string(b), "\n"); err == nil && ok {
			return port, nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return "", errors.New("chromium wrote no DevToolsActivePort within 30 s")
}

func (b *browser) get(path string, v any) error {
	return b.do(http.MethodGet, path, v)
}

func (b *browser) do(method, path string, v any) error {
	req, err := http.NewRequest(method, b.base+path, nil)
	if err != nil {
		return err
	}
	resp, err := b.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %s", method, path, resp.Status)
	}
	if v == nil {
		return nil
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

// target is a tab as /json/list describes it.
type target struct{ ID, Title, URL string }

// open opens the page at path in a new tab and returns the time until its
// first drawing is on screen (under #timing the page then sets its title
// to end in "· drawn in N ms") and the page's own figure N, navigation
// start to then; it closes the tab.
func (b *browser) open(path string) (time.Duration, int, error) {
	start := time.Now()
	title, err := b.titled(path, "timing", func(title string) bool { return strings.Contains(title, " · drawn in ") })
	if err != nil {
		return 0, 0, err
	}
	return time.Since(start), drawnMs(title), nil
}

// titled opens the page at path#fragment in a new tab, waits (a minute at
// most) until done accepts its title, closes the tab and returns the
// title. The DevTools endpoint is polled every 5 ms.
func (b *browser) titled(path, fragment string, done func(title string) bool) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	u := (&url.URL{Scheme: "file", Path: abs, Fragment: fragment}).String()
	start := time.Now()
	var tab target
	if err := b.do(http.MethodPut, "/json/new?"+url.QueryEscape(u), &tab); err != nil {
		return "", err
	}
	defer b.do(http.MethodGet, "/json/close/"+tab.ID, nil)
	for time.Since(start) < time.Minute {
		var tabs []target
		if err := b.get("/json/list", &tabs); err != nil {
			return "", err
		}
		for _, x := range tabs {
			if x.ID == tab.ID && done(x.Title) {
				return x.Title, nil
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	return "", fmt.Errorf("%s: not done within a minute", path)
}

// drawnMs reads "drawn in N ms" from a title the page set under #timing.
func drawnMs(title string) int {
	_, after, ok := strings.Cut(title, "drawn in ")
	if !ok {
		return -1
	}
	n, _ := strconv.Atoi(strings.TrimSuffix(after, " ms"))
	return n
}

// gitHead is the short commit the work tree is at ("unknown" outside git).
func gitHead() string {
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}
