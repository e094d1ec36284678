package lockcheck.redisson;

import lockcheck.driver.Log;
import lockcheck.driver.Protocol;

import java.io.IOException;

/**
 * lockcheck's driver for Redisson, protocol 2 with owners (impl/driver/doc.go;
 * served by {@link Protocol}): one process hosts one owner, or with owners
 * several, each a thread of its own on the one RedissonClient.
 *
 * <p>Usage: {@code java -cp redisson-driver.jar:lib/* lockcheck.redisson.Driver
 * --lock lock|fair|fenced|spin|multilock|redlock [--members N] [--command-timeout-ms N] [--name-suffix S]}.
 *
 * <p>Owner identity: Redisson ties a hold to {@code <client id>:<thread id>}. The
 * driver has one Redisson client and handles each request on its owner's
 * thread (the main thread when requests name no owner), passing that thread's
 * id to every call (the {@code *Async(..., threadId)} overloads; the hold count
 * and the fenced lock, which have no such overload, are asked from the same
 * thread). An owner's requests always run on its thread and no other thread
 * calls a lock for it, so each owner is one Redisson owner.
 */
public final class Driver {
    private static final Log LOG = new Log("redisson driver");

    private Driver() {
    }

    public static void main(String[] args) throws IOException {
        Protocol.run(LOG, args, Protocol.Serving.MAIN_THREAD, a -> new Locks(Options.parse(a)));
    }

    static void log(String msg) {
        LOG.print(msg);
    }

    /** The Redisson version this driver was built against (Maven fills it in). */
    static String redissonVersion() {
        return Protocol.buildProperty(LOG, "redisson.version");
    }
}
