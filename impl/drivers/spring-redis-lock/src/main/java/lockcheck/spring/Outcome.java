package lockcheck.spring;

import com.fasterxml.jackson.databind.node.ObjectNode;

import lockcheck.driver.Replies;

/** How the library's outcomes map to replies ({@link Replies}). */
final class Outcome {
    private Outcome() {
    }

    /**
     * The error reply for e: redis_error only when Redis answered a command
     * with an error reply (Lettuce's RedisCommandExecutionException, which
     * Spring wraps in a DataAccessException and the lock in a
     * CannotAcquireLockException): that command did not take effect.
     * Everything else (a timeout, a lost connection, a bad request) leaves
     * the outcome unknown.
     */
    static ObjectNode of(Throwable e) {
        StringBuilder msg = new StringBuilder(e.getClass().getSimpleName() + ": " + e.getMessage());
        boolean redis = false;
        for (Throwable c = e.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
            msg.append(" <- ").append(c.getClass().getSimpleName()).append(": ").append(c.getMessage());
            redis |= c instanceof io.lettuce.core.RedisCommandExecutionException;
        }
        return Replies.error(msg.toString(), redis);
    }
}
