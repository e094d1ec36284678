package release

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
)

func TestEnsureBuildsOnceAndReuses(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "lib", "1.0.0")
	var builds atomic.Int32
	build := func(_ context.Context, d string) error {
		builds.Add(1)
		return os.WriteFile(filepath.Join(d, "artifact"), []byte("x"), 0o644)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- Ensure(context.Background(), dir, build)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := builds.Load(); n != 1 {
		t.Fatalf("%d builds by 4 concurrent callers, want 1", n)
	}
	if !Built(dir) {
		t.Fatal("not marked built")
	}
	if _, err := os.Stat(filepath.Join(dir, "artifact")); err != nil {
		t.Fatal(err)
	}
}

func TestEnsureFailureLeavesNothing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "lib", "2.0.0")
	boom := errors.New("boom")
	err := Ensure(context.Background(), dir, func(_ context.Context, d string) error {
		os.WriteFile(filepath.Join(d, "half"), nil, 0o644)
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err %v, want boom", err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("a failed build left %s behind (%v)", dir, err)
	}
}

func TestEnsureWaitIsBoundedByContext(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "lib", "3.0.0")
	os.MkdirAll(filepath.Dir(dir), 0o755)
	unlock, err := lockFile(context.Background(), dir+".lock")
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Ensure(ctx, dir, func(context.Context, string) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Fatalf("Ensure while another holds the lock, ctx done: %v, want context.Canceled", err)
	}
}

func TestSourceStamp(t *testing.T) {
	root := t.TempDir()
	write := func(rel, body string) {
		p := filepath.Join(root, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("src/A.java", "a")
	s1, err := SourceStamp(root)
	if err != nil {
		t.Fatal(err)
	}
	write("target/out.jar", "built")
	write("node_modules/x/index.js", "dep")
	if s2, _ := SourceStamp(root); s2 != s1 {
		t.Errorf("build outputs changed the stamp: %s -> %s", s1, s2)
	}
	write("src/A.java", "b")
	if s3, _ := SourceStamp(root); s3 == s1 {
		t.Errorf("a changed source kept the stamp %s", s1)
	}
}

// TestRegistries reads each registry's answer as the registry writes it,
// from a server of the test's own.
func TestRegistries(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/maven/org/redisson/redisson/maven-metadata.xml":
			w.Write([]byte(`<metadata><versioning><versions><version>3.12.0</version><version>4.7.0</version></versions></versioning></metadata>`))
		case "/npm/redlock":
			w.Write([]byte(`{"versions":{"4.2.0":{},"4.1.0":{}},"time":{"4.1.0":"2019-01-01","4.2.0":"2020-01-01","3.0.0":"2018-01-01"}}`))
		case "/pypi/pottery/json":
			w.Write([]byte(`{"releases":{"3.0.0":[{"upload_time_iso_8601":"2022"}],"2.3.0":[{"upload_time_iso_8601":"2021"}],"0.1":[]}}`))
		case "/crates/rs/lo/rslock":
			w.Write([]byte("{\"vers\":\"0.4.0\",\"yanked\":false}\n{\"vers\":\"0.5.0\",\"yanked\":true}\n{\"vers\":\"0.10.0\",\"yanked\":false}\n"))
		case "/go/github.com/go-redsync/redsync/v4/@v/list":
			w.Write([]byte("v4.18.1\nv4.11.0\n"))
		case "/go/github.com/go-redsync/redsync/v4/@v/v4.0.3.info":
			w.Write([]byte(`{"Version":"v4.0.3"}`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	defer func(m, n, p, c, g string) { mavenCentral, npmRegistry, pypiJSON, cratesIndex, goProxy = m, n, p, c, g }(mavenCentral, npmRegistry, pypiJSON, cratesIndex, goProxy)
	mavenCentral, npmRegistry, pypiJSON, cratesIndex, goProxy = srv.URL+"/maven/", srv.URL+"/npm/", srv.URL+"/pypi/", srv.URL+"/crates/", srv.URL+"/go/"
	ctx := context.Background()
	for name, c := range map[string]struct {
		list func() ([]string, error)
		want []string
	}{
		"maven":  {func() ([]string, error) { return MavenVersions(ctx, "org.redisson", "redisson") }, []string{"3.12.0", "4.7.0"}},
		"npm":    {func() ([]string, error) { return NPMVersions(ctx, "redlock") }, []string{"4.1.0", "4.2.0"}},
		"pypi":   {func() ([]string, error) { return PyPIVersions(ctx, "pottery") }, []string{"2.3.0", "3.0.0"}},
		"crates": {func() ([]string, error) { return CrateVersions(ctx, "rslock") }, []string{"0.4.0", "0.10.0"}},
		"go":     {func() ([]string, error) { return GoVersions(ctx, "github.com/go-redsync/redsync/v4") }, []string{"v4.11.0", "v4.18.1"}},
	} {
		got, err := c.list()
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%s: %v %v, want %v", name, got, err, c.want)
		}
	}
	if ok, err := GoHas(ctx, "github.com/go-redsync/redsync/v4", "v4.0.3"); !ok || err != nil {
		t.Errorf("GoHas v4.0.3: %v %v, want true", ok, err)
	}
	if ok, err := GoHas(ctx, "github.com/go-redsync/redsync/v4", "v9.9.9"); ok || err != nil {
		t.Errorf("GoHas v9.9.9: %v %v, want false, nil", ok, err)
	}
	if _, err := MavenVersions(ctx, "no.such", "thing"); err == nil {
		t.Error("a missing artifact listed releases")
	}
}
