package lockcheck.spring;

import lockcheck.driver.Log;
import lockcheck.driver.Protocol;

import java.io.IOException;

/**
 * lockcheck's driver for Spring Integration's RedisLockRegistry, protocols 1 and 2
 * (impl/driver/doc.go; served by {@link Protocol}): one process is one lock
 * owner, or with protocol 2 several owners, threads sharing its registries.
 *
 * <p>Usage: {@code java -cp spring-lock-driver.jar:lib/* lockcheck.spring.Driver
 * --mode spin|pubsub [--command-timeout-ms N]}.
 *
 * <p>Owner identity: the library's lock is held by a thread (a ReentrantLock
 * in the JVM) and, in Redis, by the registry's clientId. Every request is
 * served on its owner's thread ({@link Protocol.Serving#OWNER_THREAD}: the
 * process's one owner thread, or with owners each owner's own): the main
 * thread reads requests, hands each to it and answers error for one still
 * running 25 ms before its timeout_ms (the library's lock() cannot be
 * cancelled; the call is left alone, and lockcheck ends the process). An
 * "interruptible" lock is lockInterruptibly(), which the protocol's
 * interrupt request ends.
 */
public final class Driver {
    private static final Log LOG = new Log("spring-lock driver");

    private Driver() {
    }

    public static void main(String[] args) throws IOException {
        Protocol.run(LOG, args, Protocol.Serving.OWNER_THREAD, a -> new Locks(Options.parse(a)));
    }

    static void log(String msg) {
        LOG.print(msg);
    }

    /** The spring-integration-redis version this driver was built against (Maven fills it in). */
    static String libraryVersion() {
        return Protocol.buildProperty(LOG, "spring-integration.version");
    }
}
