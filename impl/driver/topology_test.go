package driver

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/impl"
	"github.com/redis/go-redis/v9"
)

// TestTopologyOf: what a driver is told for each kind of go-redis client.
func TestTopologyOf(t *testing.T) {
	single := redis.NewClient(&redis.Options{Addr: "127.0.0.1:7000", Password: "pw", DB: 2})
	failover := redis.NewFailoverClient(&redis.FailoverOptions{MasterName: "m", SentinelAddrs: []string{"127.0.0.1:26379"}})
	described := NewFailoverClient(&redis.FailoverOptions{
		MasterName: "m", SentinelAddrs: []string{"127.0.0.1:26379", "127.0.0.1:26380"}, Password: "pw", SentinelPassword: "spw",
	})
	cluster := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{"127.0.0.1:7001", "127.0.0.1:7002"}})
	for _, c := range []redis.UniversalClient{single, failover, described, cluster} {
		t.Cleanup(func() { _ = c.Close() })
	}
	if got, err := topologyOf(single); err != nil || got.Kind != TopologySingle || !slices.Equal(got.Addrs, []string{"127.0.0.1:7000"}) || got.Password != "pw" || got.DB != 2 {
		t.Errorf("single: %+v %v", got, err)
	}
	if _, err := topologyOf(failover); err == nil || !strings.Contains(err.Error(), "driver.Describe") {
		t.Errorf("an undescribed FailoverClient: %v, want an error pointing at driver.Describe", err)
	}
	if got, err := topologyOf(described); err != nil || got.Kind != TopologySentinel || got.MasterName != "m" || len(got.Addrs) != 2 || got.SentinelPassword != "spw" || got.Password != "pw" {
		t.Errorf("sentinel: %+v %v", got, err)
	}
	if got, err := topologyOf(cluster); err != nil || got.Kind != TopologyCluster || len(got.Addrs) != 2 {
		t.Errorf("cluster: %+v %v", got, err)
	}
	if b := (Banner{}); !b.Supports(TopologySingle) || b.Supports(TopologySentinel) {
		t.Error("a banner without topologies supports single only")
	}
	if b := (Banner{Topologies: []string{TopologySingle, TopologySentinel}}); !b.Supports(TopologySentinel) || b.Supports(TopologyCluster) {
		t.Error("a banner supports what it lists")
	}
}

// TestDriverRefusesTopology: a driver whose banner lacks the run's topology
// is refused before hello, saying why.
func TestDriverRefusesTopology(t *testing.T) {
	rdb := NewFailoverClient(&redis.FailoverOptions{MasterName: "m", SentinelAddrs: []string{"127.0.0.1:9"}})
	t.Cleanup(func() { _ = rdb.Close() })
	m, err := Open(fakeOptions("ok"))(context.Background(), rdb)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err = m.NewLocker("l", "p0").Lock(ctx, 0)
	if err == nil || !strings.Contains(err.Error(), "does not support the sentinel topology") {
		t.Fatalf("lock through a driver without sentinel: %v", err)
	}
}

// TestSharedObjectsNeedTheCapability: hello asks for shared lock objects
// only when the Maker was told to and the driver announces
// shared-objects; a driver without it is not asked (and still runs).
func TestSharedObjectsNeedTheCapability(t *testing.T) {
	for _, tc := range []struct {
		mode   string
		shared bool
		want   int
	}{{"objects", true, 1}, {"objects", false, 0}, {"objects-nocap", true, 0}} {
		opts := fakeOptions(tc.mode)
		opts.SharedObjects = tc.shared
		rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:9"})
		t.Cleanup(func() { _ = rdb.Close() })
		m, err := Open(opts)(context.Background(), rdb)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		got, err := m.NewLocker("l", "p0").(interface {
			HoldCount(context.Context) (int, error)
		}).HoldCount(ctx)
		cancel()
		_ = m.Close()
		if err != nil || got != tc.want {
			t.Errorf("%s, SharedObjects %v: hello said shared_objects %d (%v), want %d", tc.mode, tc.shared, got, err, tc.want)
		}
	}
}

// TestCallFormsNeedTheCapability: a call whose context carries a CallForm
// sends its draw only to a driver that announces forms, and the form the
// driver names in its reply comes back in Used; without a CallForm no draw
// is sent.
func TestCallFormsNeedTheCapability(t *testing.T) {
	for _, tc := range []struct {
		mode string
		form *impl.CallForm
		want string
	}{{"forms", &impl.CallForm{Draw: 7}, "draw 7"}, {"forms", nil, ""}, {"forms-nocap", &impl.CallForm{Draw: 7}, "draw 0"}} {
		rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:9"})
		t.Cleanup(func() { _ = rdb.Close() })
		m, err := Open(fakeOptions(tc.mode))(context.Background(), rdb)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		var got []string
		for _, call := range []func(context.Context, impl.Locker) error{
			func(ctx context.Context, l impl.Locker) error { return l.Lock(ctx, 0) },
			func(ctx context.Context, l impl.Locker) error { _, err := l.TryLock(ctx, 0, time.Second); return err },
			func(ctx context.Context, l impl.Locker) error { return l.Unlock(ctx) },
		} {
			var f impl.CallForm
			cctx := ctx
			if tc.form != nil {
				f = *tc.form
				cctx = impl.WithCallForm(ctx, &f)
			}
			if err := call(cctx, m.NewLocker("l", "p0")); err != nil {
				t.Fatalf("%s: %v", tc.mode, err)
			}
			got = append(got, f.Used)
		}
		cancel()
		_ = m.Close()
		if want := []string{tc.want, tc.want, tc.want}; !slices.Equal(got, want) {
			t.Errorf("%s, form %+v: forms used %q, want %q", tc.mode, tc.form, got, want)
		}
	}
}

// TestStallsReachOnStall: the stalls a driver reports with its replies
// reach Options.OnStall as times of this process's clock, with the owners
// the process hosts.
func TestStallsReachOnStall(t *testing.T) {
	type stall struct {
		owners     []string
		start, end time.Time
	}
	heard := make(chan stall, 8)
	opts := fakeOptions("stalls")
	opts.OnStall = func(owners []string, start, end time.Time) { heard <- stall{owners, start, end} }
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:9"})
	t.Cleanup(func() { _ = rdb.Close() })
	m, err := Open(opts)(context.Background(), rdb)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	before := time.Now()
	if err := m.NewLocker("l", "p3").Lock(ctx, 0); err != nil {
		t.Fatal(err)
	}
	after := time.Now()
	select {
	case s := <-heard:
		d := s.end.Sub(s.start)
		if len(s.owners) != 1 || s.owners[0] != "p3" || d < 45*time.Millisecond || d > 55*time.Millisecond ||
			s.start.Before(before.Add(-150*time.Millisecond)) || s.end.After(after) {
			t.Errorf("heard %v [%v, %v] (lock sent at %v, answered by %v): want p3's stall of 50 ms just before the reply", s.owners, s.start, s.end, before, after)
		}
	default:
		t.Fatal("OnStall heard nothing of the reply's stall")
	}
}
