package workloads

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/model"
)

// redisReply is an error reply from the server, as go-redis types it.
type redisReply string

func (e redisReply) Error() string { return string(e) }
func (redisReply) RedisError()     {}

func TestClassify(t *testing.T) {
	var _ redis.Error = redisReply("")
	notObtained := fmt.Errorf("lock %q: %w", "x", errors.Join(impl.ErrNotObtained, context.DeadlineExceeded))
	for _, tc := range []struct {
		name string
		kind model.Kind
		err  error
		want model.Outcome
	}{
		{"nil acquire", model.Acquire, nil, model.OK},
		{"nil release", model.Release, nil, model.OK},
		{"not owner", model.Release, fmt.Errorf("unlock: %w", impl.ErrNotOwner), model.Fail},
		{"lock ctx ran out while waiting", model.Acquire, notObtained, model.Fail},
		{"server reply on acquire", model.Acquire, fmt.Errorf("acquire: %w", redisReply("LOADING Redis is loading")), model.Fail},
		{"server reply on release", model.Release, fmt.Errorf("unlock: %w", redisReply("READONLY")), model.Info},
		{"redis nil is no reply", model.Acquire, fmt.Errorf("x: %w", redis.Nil), model.Info},
		{"deadline mid-request", model.Acquire, fmt.Errorf("acquire: %w", context.DeadlineExceeded), model.Info},
		{"cancelled mid-request", model.Release, context.Canceled, model.Info},
		{"eof", model.Acquire, io.EOF, model.Info},
		{"unexpected eof", model.Release, io.ErrUnexpectedEOF, model.Info},
		{"reset", model.Acquire, &net.OpError{Op: "read", Err: syscall.ECONNRESET}, model.Info},
		{"refused", model.Acquire, &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}, model.Info},
		{"client closed", model.Acquire, impl.ErrClosed, model.Info},
		{"retries enabled", model.Acquire, impl.ErrRetriesEnabled, model.Info},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := classify(tc.kind, tc.err); got != tc.want {
				t.Errorf("classify(%s, %v) = %s, want %s", tc.kind, tc.err, got, tc.want)
			}
		})
	}
}
