package lockcheck.spring;

import com.fasterxml.jackson.databind.node.ObjectNode;

/** Replies, and how the library's outcomes map to them. */
final class Outcome {
    private Outcome() {
    }

    static ObjectNode ok() {
        return status("ok");
    }

    static ObjectNode fail() {
        return status("fail");
    }

    static ObjectNode error(String msg, boolean redisError) {
        ObjectNode n = status("error");
        n.put("error", msg);
        if (redisError) {
            n.put("redis_error", true);
        }
        return n;
    }

    private static ObjectNode status(String s) {
        ObjectNode n = Driver.JSON.createObjectNode();
        n.put("status", s);
        return n;
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
        return error(msg.toString(), redis);
    }
}
