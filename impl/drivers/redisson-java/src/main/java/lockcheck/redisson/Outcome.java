package lockcheck.redisson;

import com.fasterxml.jackson.databind.node.ObjectNode;

import lockcheck.driver.Replies;

import org.redisson.client.RedisException;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;

/** How Redisson's outcomes map to replies ({@link Replies}), and waiting for its futures. */
final class Outcome {
    /**
     * An error reply from Redis: an upper-case code, then the message
     * ("WRONGTYPE Operation against ...", "ERR Error running script ...",
     * "LOADING ...", "READONLY ..."). Redisson's own failures (timeouts, lost
     * connections, "Unable to ...") never start like that.
     */
    private static final Pattern REDIS_REPLY = Pattern.compile("^[A-Z][A-Z_]+ .*", Pattern.DOTALL);

    /** A Redisson future that did not end by its request's deadline. */
    static final class Timeout extends Exception {
        Timeout(String msg) {
            super(msg);
        }
    }

    /**
     * A Redisson future whose wait was interrupted (Thread.interrupt) and
     * which was then cancelled before it completed.
     */
    static final class Interrupted extends Exception {
        Interrupted() {
            super("interrupted: Redisson's call was cancelled before it completed");
        }
    }

    private Outcome() {
    }

    /**
     * The error reply for e: redis_error only for an error Redis answered
     * (the command did not take effect); everything else (a timeout, a lost
     * connection, a bad request) leaves the outcome unknown.
     */
    static ObjectNode of(Throwable e) {
        String msg = e.getClass().getSimpleName() + ": " + e.getMessage();
        boolean redis = e instanceof RedisException && e.getMessage() != null && REDIS_REPLY.matcher(e.getMessage()).matches();
        return Replies.error(msg, redis);
    }

    /**
     * Waits for f until deadline (System.nanoTime): its value, or its failure
     * unwrapped (CompletionException, ExecutionException), or Timeout.
     */
    static <T> T await(CompletableFuture<T> f, long deadline) throws Exception {
        long left = deadline - System.nanoTime();
        try {
            return f.get(Math.max(left, 0), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new Timeout("no answer from Redisson by the request's deadline");
        } catch (ExecutionException e) {
            throw unwrap(e);
        } catch (InterruptedException e) {
            return interrupted(f, deadline);
        }
    }

    /**
     * What an interrupted wait for f answers, as Redisson's own synchronous
     * calls do when their thread is interrupted (CommandAsyncService.get:
     * cancel the future, throw): f is cancelled and Interrupted is thrown,
     * an error reply (outcome unknown: a cancelled lockAsync still takes the
     * lock later and then unlocks it); a future that completed first keeps
     * its outcome.
     */
    private static <T> T interrupted(CompletableFuture<T> f, long deadline) throws Exception {
        if (f.cancel(true)) {
            throw new Interrupted();
        }
        return await(f, deadline);
    }

    private static Exception unwrap(Throwable e) {
        while ((e instanceof ExecutionException || e instanceof CompletionException) && e.getCause() != null) {
            e = e.getCause();
        }
        if (e instanceof RedisException && e.getCause() instanceof IllegalMonitorStateException ims) {
            return ims;
        }
        return e instanceof Exception ex ? ex : new Exception(e);
    }
}
