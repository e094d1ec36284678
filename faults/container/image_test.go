package container_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/testcontainers/testcontainers-go"

	"github.com/lockcheck/lockcheck/faults/container"
	"github.com/lockcheck/lockcheck/faults/servers"
)

// TestEnsureImage: the image of a binary is tagged by its name and
// version, holds no base image (FROM scratch: the binary and its
// libraries, a few tens of MB at most), and is not rebuilt while the
// binary is unchanged.
func TestEnsureImage(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cli, srv := engineClient(ctx, t)
	first, err := container.EnsureImage(ctx, cli, srv.Bin)
	if err != nil {
		t.Fatal(err)
	}
	if want := "lockcheck/redis-server:" + srv.Version + "-"; !strings.HasPrefix(first.Tag, want) {
		t.Errorf("tag %s, want %s<digest>", first.Tag, want)
	}
	again, err := container.EnsureImage(ctx, cli, srv.Bin)
	if err != nil {
		t.Fatal(err)
	}
	if again.Built || again.Tag != first.Tag {
		t.Errorf("second EnsureImage: %+v, want the same tag, not rebuilt", again)
	}
	info, err := cli.ImageInspect(ctx, first.Tag)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(info.RootFS.Layers); n != 1 {
		t.Errorf("image has %d layers, want 1 (FROM scratch, one COPY)", n)
	}
	if info.Size > 64<<20 {
		t.Errorf("image is %d MB: more than a server and its libraries", info.Size>>20)
	}
}

// engineClient skips t where no engine answers or no default server is
// installed, and otherwise returns an engine client (closed by t's
// cleanup, after the cleanups registered later) and the default server.
func engineClient(ctx context.Context, t *testing.T) (*testcontainers.DockerClient, servers.Server) {
	t.Helper()
	needEngine(ctx, t)
	srv, err := servers.Resolve(ctx, "")
	if err != nil {
		t.Skipf("skipping: %v", err)
	}
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cli.Close() })
	return cli, srv
}
