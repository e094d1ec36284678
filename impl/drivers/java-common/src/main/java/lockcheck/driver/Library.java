package lockcheck.driver;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.PrintStream;
import java.util.List;

/**
 * The library side of a driver, which {@link Protocol} serves: the banner
 * it announces, the requests it answers and how its failures read as
 * replies. Everything else (stdin/stdout, JSON Lines, deadlines, the owner
 * thread) is the protocol's.
 */
public interface Library {
    /** The banner's "driver" name (with any suffix), for instance "redisson-fair". */
    String driver();

    /** The library's version, the banner's "version". */
    String version();

    /** The banner's "capabilities", in order. */
    List<String> capabilities();

    /** The banner's "topologies", in order. */
    List<String> topologies();

    /**
     * Whether one process may host several owners (protocol 2, capability
     * "owners"): then {@link #handle} is called concurrently, each owner's
     * requests on that owner's own thread, and must take the calling
     * thread as the owner (a thread id, a thread-bound lock). Default false.
     */
    default boolean owners() {
        return false;
    }

    /**
     * Answers one request (its "id" is the protocol's). timeoutMs is the
     * request's timeout_ms (30000 when absent or not positive); deadline
     * (System.nanoTime) is when the reply is due, 25 ms before it. An
     * exception is answered with {@link #errorOf}.
     */
    ObjectNode handle(JsonNode req, long timeoutMs, long deadline) throws Exception;

    /** The error reply for a failure of handle (see {@link Replies#error}). */
    ObjectNode errorOf(Throwable e);

    /**
     * Called once when serving starts, after the banner: a hook that sees each
     * non-blank request line before it is parsed (a fault for lockcheck's own
     * tests), or null, the default.
     */
    default LineHook lineHook() {
        return null;
    }

    /** Sees each non-blank request line before it is served. */
    interface LineHook {
        /** Called with the protocol's stdout and the line's number (1 for the first). */
        void line(PrintStream out, long n);
    }
}
