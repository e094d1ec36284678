// Package servers names the servers of lockcheck's --server axis and finds
// their binaries: redis-7.0 (Debian's redis-server), redis-6.2 and
// valkey-8.1 (in the cache scripts/servers.sh fills: make deps).
package servers

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Names are the servers --server takes, in the order reports list them.
var Names = []string{"redis-7.0", "redis-6.2", "valkey-8.1"}

// ErrUnknown is wrapped by Resolve's error for a name not in Names.
var ErrUnknown = errors.New("unknown server")

// ErrMissing is wrapped by Resolve's error when the server's binary is not
// here: make deps (scripts/servers.sh) fetches and builds them.
var ErrMissing = errors.New("server not installed (make deps installs it: scripts/servers.sh)")

// Server is one server binary of the axis.
type Server struct {
	// Name is its name on the axis ("valkey-8.1"); the default server is
	// named after its version ("redis-7.0" for Debian's 7.0.15).
	Name string
	// Bin is the binary, an absolute path.
	Bin string
	// Version is what its --version says ("8.1.8").
	Version string
}

// String is "valkey-8.1 (valkey-server 8.1.8)".
func (s Server) String() string {
	return fmt.Sprintf("%s (%s %s)", s.Name, filepath.Base(s.Bin), s.Version)
}

// CacheDir is where scripts/servers.sh puts the servers Debian does not
// ship: $XDG_CACHE_HOME/lockcheck, default ~/.cache/lockcheck.
func CacheDir() string {
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "lockcheck")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(os.TempDir(), "lockcheck-cache")
	}
	return filepath.Join(home, ".cache", "lockcheck")
}

// Check returns an error wrapping ErrUnknown when name ("" is the default)
// is not a server of the axis; it runs nothing.
func Check(name string) error {
	if name == "" || slices.Contains(Names, name) {
		return nil
	}
	return fmt.Errorf("%w %q: want one of %s", ErrUnknown, name, strings.Join(Names, ", "))
}

// Resolve finds the binary of name and checks its version: "" is the
// default server ($REDIS_SERVER, else redis-server on PATH), named after
// its version. ctx bounds the --version call.
func Resolve(ctx context.Context, name string) (Server, error) {
	var bin, want string
	switch name {
	case "":
		bin = os.Getenv("REDIS_SERVER")
		if bin == "" {
			bin = "redis-server"
		}
	case "redis-7.0":
		bin, want = "redis-server", "7.0."
	case "redis-6.2":
		bin, want = filepath.Join(CacheDir(), "redis-6.2", "redis-server"), "6.2."
	case "valkey-8.1":
		bin, want = filepath.Join(CacheDir(), "valkey-8.1", "valkey-server"), "8.1."
	default:
		return Server{}, fmt.Errorf("%w %q: want one of %s", ErrUnknown, name, strings.Join(Names, ", "))
	}
	path, err := exec.LookPath(bin)
	if err != nil {
		return Server{}, fmt.Errorf("%s: %w (looked for %s)", orDefault(name), ErrMissing, bin)
	}
	if path, err = filepath.Abs(path); err != nil {
		return Server{}, err
	}
	v, err := Version(ctx, path)
	if err != nil {
		return Server{}, err
	}
	if !strings.HasPrefix(v, want) {
		return Server{}, fmt.Errorf("%s: %s is version %s, want %sx", name, path, v, want)
	}
	if name == "" {
		name = family(path) + "-" + majorMinor(v)
	}
	return Server{Name: name, Bin: path, Version: v}, nil
}

func orDefault(name string) string {
	if name == "" {
		return "the default server"
	}
	return name
}

func family(bin string) string {
	if strings.Contains(filepath.Base(bin), "valkey") {
		return "valkey"
	}
	return "redis"
}

func majorMinor(v string) string {
	f := strings.SplitN(v, ".", 3)
	if len(f) < 2 {
		return v
	}
	return f[0] + "." + f[1]
}

var versionRE = regexp.MustCompile(`\bv=([0-9][0-9A-Za-z.\-]*)`)

// Version runs bin --version (at most 10 s) and returns its v= field.
func Version(ctx context.Context, bin string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %w", bin, err)
	}
	m := versionRE.FindSubmatch(out)
	if m == nil {
		return "", fmt.Errorf("%s --version said %q: no v=<version>", bin, strings.TrimSpace(string(out)))
	}
	return string(m[1]), nil
}
