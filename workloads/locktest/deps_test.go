package locktest

import (
	"context"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// maxModules bounds the modules a test binary that imports only locktest
// compiles (lockcheck's own and go-redis among them): package doc's
// promise of a light dependency set.
const maxModules = 12

// heavyModules are modules locktest must not build, even through another:
// the peer libraries, plotting, the table library and the Docker client
// (the CLI wires them in; locktest asks for none).
var heavyModules = []string{
	"github.com/go-redsync/redsync/v4",
	"github.com/bsm/redislock",
	"gonum.org/v1/plot",
	"github.com/olekukonko/tablewriter",
	"github.com/testcontainers/testcontainers-go",
	"github.com/moby/moby/client",
}

// toxiproxyServer is the toxiproxy server package, which locktest must not
// build either (the faults package's remote links use the light client
// package of the same module).
const toxiproxyServer = "github.com/Shopify/toxiproxy/v2"

// TestLightDependencies: locktest compiles at most maxModules modules,
// none of them heavy, and not the toxiproxy server.
func TestLightDependencies(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "go", "list", "-deps", "-f", "{{.ImportPath}} {{with .Module}}{{.Path}}{{end}}", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var modules []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, mod, _ := strings.Cut(line, " ")
		if mod != "" && !slices.Contains(modules, mod) {
			modules = append(modules, mod)
		}
		if slices.Contains(heavyModules, mod) || pkg == toxiproxyServer {
			t.Errorf("locktest builds %s (module %s)", pkg, mod)
		}
	}
	if len(modules) > maxModules {
		slices.Sort(modules)
		t.Errorf("locktest compiles %d modules, more than %d:\n%s", len(modules), maxModules, strings.Join(modules, "\n"))
	}
	if !slices.Contains(modules, "github.com/redis/go-redis/v9") {
		t.Errorf("go-redis missing from %v: the module list is not locktest's", modules)
	}
}
