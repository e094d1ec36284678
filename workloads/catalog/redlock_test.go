package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/impl/driver"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// TestOnNodesBindsTheRedlockTopology: Registry.OnNodes binds the redlock
// subject and the drivers of the redlock topology, and only them; unbound,
// they refuse to open, naming what they need.
func TestOnNodesBindsTheRedlockTopology(t *testing.T) {
	var onNodes []string
	for _, s := range Subjects.All() {
		if s.OnNodes == nil {
			continue
		}
		onNodes = append(onNodes, s.Name)
		if s.Needs != subject.NeedsRedlockNodes || !s.SplitVotes {
			t.Errorf("%s: Needs %q, SplitVotes %v: want %q, true", s.Name, s.Needs, s.SplitVotes, subject.NeedsRedlockNodes)
		}
		if _, err := s.Configure(subject.OpenOptions{})(context.Background(), nil); !errors.Is(err, ErrNoRedlockNodes) {
			t.Errorf("%s opened without nodes: %v, want ErrNoRedlockNodes", s.Name, err)
		}
	}
	slices.Sort(onNodes)
	if want := []string{"pottery-redlock-3", RedlockName, "rslock-3"}; !slices.Equal(onNodes, want) {
		t.Fatalf("subjects with OnNodes = %v, want %v", onNodes, want)
	}
	for _, s := range Subjects.All() {
		if s.Needs == subject.NeedsRedlockNodes && s.OnNodes == nil {
			t.Errorf("%s needs N nodes but cannot be bound to them", s.Name)
		}
	}

	nodes := []string{"127.0.0.2:7001", "127.0.0.3:7002", "127.0.0.4:7003"}
	reg, err := Subjects.OnNodes(nodes, "pw")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := reg.Names(), Subjects.Names(); !slices.Equal(got, want) {
		t.Fatalf("bound registry names %v, want %v", got, want)
	}
	for _, d := range shippedDrivers() {
		if !d.Redlock {
			continue
		}
		s, err := reg.Lookup(d.Name)
		if err != nil {
			t.Fatal(err)
		}
		if s.Kind != subject.KindExternal || s.Needs != subject.NeedsRedlockNodes || !s.SplitVotes || s.Configure == nil {
			t.Errorf("bound %s = %+v", d.Name, s)
		}
	}
}

// TestRedlockDriverHelloNamesTheNodes: a bound driver of the redlock
// topology says hello with topology redlock, every node and their password,
// whatever client the runner opens it on.
func TestRedlockDriverHelloNamesTheNodes(t *testing.T) {
	if _, err := os.Stat(debianPython); err != nil {
		t.Skipf("needs %s: %v", debianPython, err)
	}
	dir := t.TempDir()
	script := `import json, sys
print(json.dumps({"protocol": 1, "driver": "probe", "version": "0", "capabilities": [], "topologies": ["single", "redlock"]}), flush=True)
for line in sys.stdin:
    req = json.loads(line)
    if req["op"] == "hello":
        open("hello.json", "w").write(line)
    print(json.dumps({"id": req["id"], "status": "ok" if req["op"] == "hello" else "fail"}), flush=True)
`
	if err := os.WriteFile(filepath.Join(dir, "driver.py"), []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	nodes := []string{"127.0.0.2:7001", "127.0.0.3:7002", "127.0.0.4:7003"}
	s := Driver{Name: "probe", Dir: dir, Command: []string{debianPython, "driver.py"}, Redlock: true}.Subject().OnNodes(nodes, "pw")
	single := redis.NewClient(&redis.Options{Addr: "127.0.0.9:6379"}) // the runner's client, never dialled
	defer single.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	m, err := s.Configure(subject.OpenOptions{})(ctx, single)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if err := m.NewLocker("l", "p1").Unlock(ctx); !errors.Is(err, impl.ErrNotOwner) {
		t.Fatalf("unlock: %v, want ErrNotOwner", err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "hello.json"))
	if err != nil {
		t.Fatal(err)
	}
	var hello driver.Request
	if err := json.Unmarshal(raw, &hello); err != nil {
		t.Fatal(err)
	}
	if hello.Topology != driver.TopologyRedlock || !slices.Equal(hello.Redis, nodes) || hello.Password != "pw" {
		t.Fatalf("hello = %s, want topology redlock, redis %v, password pw", raw, nodes)
	}
}
