package lockcheck.redisson;

import lockcheck.driver.Log;
import lockcheck.driver.Protocol;

import java.io.IOException;

/**
 * lockcheck's driver for Redisson, protocol 1 (impl/driver/doc.go; served by
 * {@link Protocol}): one process is one lock owner.
 *
 * <p>Usage: {@code java -cp redisson-driver.jar:lib/* lockcheck.redisson.Driver
 * --lock lock|fair|fenced|spin [--command-timeout-ms N] [--name-suffix S]}.
 *
 * <p>Owner identity: Redisson ties a hold to {@code <client id>:<thread id>}. The
 * driver has one Redisson client and handles every request on its main thread,
 * passing that thread's id to every call (the {@code *Async(..., threadId)}
 * overloads; the hold count, which has no such overload, is asked from the same
 * thread). No other thread ever calls a lock, so one process is one owner.
 */
public final class Driver {
    private static final Log LOG = new Log("redisson driver");

    private Driver() {
    }

    public static void main(String[] args) throws IOException {
        long owner = Thread.currentThread().getId();
        Protocol.run(LOG, args, Protocol.Serving.MAIN_THREAD, a -> new Locks(Options.parse(a), owner));
    }

    static void log(String msg) {
        LOG.print(msg);
    }

    /** The Redisson version this driver was built against (Maven fills it in). */
    static String redissonVersion() {
        return Protocol.buildProperty(LOG, "redisson.version");
    }
}
