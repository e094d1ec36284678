package workloads

import (
	"errors"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/model"
)

// classify decides what a process learned from an op's error: the one place
// where errors become outcomes (a TryLock that answered false with a nil
// error is a fail before classify is asked).
//
//   - nil: ok.
//   - impl.ErrNotOwner (Unlock of a hold the lock says is not ours): fail.
//   - impl.ErrNotObtained (Lock or TryLock whose ctx ended while waiting):
//     fail. The Locker contract promises that such a call leaves nothing
//     behind in Redis; a lock that breaks that promise breaks the contract,
//     and the checkers will say so.
//   - An error reply from Redis (the server answered): fail for an acquire,
//     which then did not happen. For a release it is info: the model's
//     failed release means "not the owner", while a refused script (LOADING,
//     READONLY, ...) leaves the hold where it was, so the process cannot know
//     what it holds and is retired.
//   - Anything else (timeouts, EOF, resets, context deadlines during a
//     request, a closed client): info.
func classify(kind model.Kind, err error) model.Outcome {
	switch {
	case err == nil:
		return model.OK
	case errors.Is(err, impl.ErrNotOwner), errors.Is(err, impl.ErrNotObtained):
		return model.Fail
	case isServerReply(err) && kind == model.Acquire:
		return model.Fail
	}
	return model.Info
}

// isServerReply reports whether err is an error reply from Redis (not the
// nil reply, which go-redis also types as a redis.Error).
func isServerReply(err error) bool {
	var rerr redis.Error
	return errors.As(err, &rerr) && !errors.Is(err, redis.Nil)
}
