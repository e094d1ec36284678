package lockcheck.redisson;

import org.redisson.RedissonMultiLock;
import org.redisson.RedissonRedLock;
import org.redisson.api.RCountDownLatch;
import org.redisson.api.RFuture;
import org.redisson.api.RLock;
import org.redisson.api.RSemaphore;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;
import org.redisson.config.LockcheckConnection;
import org.redisson.config.SentinelServersConfig;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.concurrent.TimeUnit;

/**
 * The parts of Redisson's API that differ between its releases, for the
 * older releases this source set is built against (src/compat/legacy:
 * 3.8.0 to 3.24.x; build.sh picks the set by version). Against
 * src/compat/current it lacks: the fenced lock (the driver's hello refuses
 * it), the fair lock's queueing time (its replies carry no "enqueued"),
 * Sentinel and ACL passwords (refused) and a subscription timeout of its own
 * (Redisson's default applies). What only some of these releases have (the
 * spin lock from 3.17.0, a multilock that is an RLock, the semaphore's
 * async addPermits and availablePermits) is looked up by reflection, and
 * refused where the release lacks it.
 */
final class Compat {
    private Compat() {
    }

    /** Why kind cannot be served by this Redisson, or null when it can. */
    static String unsupported(Options.Kind kind) {
        return switch (kind) {
            case FENCED -> "redisson-fenced needs Redisson 3.25.0 or later (lockcheck's driver: src/compat/current), this is "
                    + Driver.redissonVersion();
            case SPIN -> method(RedissonClient.class, "getSpinLock", String.class) == null
                    ? "redisson-spin needs Redisson 3.17.0 or later (RSpinLock), this is " + Driver.redissonVersion()
                    : null;
            default -> null;
        };
    }

    /**
     * The codec: these releases default to FST (3.12 and older) or Marshalling,
     * which reach into the JDK's classes by reflection that Java 17 refuses;
     * the locks store no values, and a string codec needs no reflection.
     */
    static void defaults(Config c) {
        c.setCodec(new StringCodec());
    }

    static RLock fair(RedissonClient r, String name) {
        return r.getFairLock(name);
    }

    static long enqueued(RLock l) {
        return 0;
    }

    static RLock fenced(RedissonClient r, String name) {
        throw new UnsupportedOperationException(unsupported(Options.Kind.FENCED));
    }

    static RLock spin(RedissonClient r, String name) {
        try {
            return (RLock) invoke(r, 0, "getSpinLock", new Class<?>[] {String.class}, name);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** A multilock or RedLock over members, where the release's is an RLock. */
    static RLock multiLock(RLock[] members, boolean redlock) {
        Object m = redlock ? new RedissonRedLock(members) : new RedissonMultiLock(members);
        if (m instanceof RLock l) {
            return l;
        }
        throw new UnsupportedOperationException("Redisson " + Driver.redissonVersion() + "'s multilock is not an RLock (no tryLock with a lease)");
    }

    /** RSemaphore.addPermits, async where the release has it. */
    static void addPermits(RSemaphore s, int n, long deadline) throws Exception {
        invoke(s, deadline, "addPermitsAsync", new Class<?>[] {int.class}, n);
    }

    /** RSemaphore.availablePermits, async where the release has it. */
    static int availablePermits(RSemaphore s, long deadline) throws Exception {
        return (Integer) invoke(s, deadline, "availablePermitsAsync", new Class<?>[] {}, new Object[] {});
    }

    /**
     * RCountDownLatch.await(ms), async where the release has it (3.8.0 has
     * only the blocking form, which ms bounds).
     */
    static boolean awaitLatch(RCountDownLatch l, long ms, long deadline) throws Exception {
        return Boolean.TRUE.equals(invoke(l, deadline, "awaitAsync", new Class<?>[] {long.class, TimeUnit.class}, ms, TimeUnit.MILLISECONDS));
    }

    /**
     * Calls name (or, when it ends in "Async" and the release lacks it, its
     * blocking form, bounded by the client's command timeout) on target,
     * awaiting an RFuture until deadline; a release without either refuses.
     */
    private static Object invoke(Object target, long deadline, String name, Class<?>[] types, Object... args) throws Exception {
        Method m = method(target.getClass(), name, types);
        if (m == null && name.endsWith("Async")) {
            m = method(target.getClass(), name.substring(0, name.length() - "Async".length()), types);
        }
        if (m == null) {
            throw new UnsupportedOperationException(name + " needs a later Redisson than " + Driver.redissonVersion());
        }
        try {
            Object r = m.invoke(target, args);
            return r instanceof RFuture<?> f ? Locks.await(f, deadline) : r;
        } catch (InvocationTargetException e) {
            throw e.getCause() instanceof Exception c ? c : e;
        }
    }

    private static Method method(Class<?> c, String name, Class<?>... types) {
        try {
            return c.getMethod(name, types);
        } catch (NoSuchMethodException e) {
            return null;
        }
    }

    static RFuture<Long> lockAndGetToken(RLock l, long lease) {
        throw new UnsupportedOperationException(unsupported(Options.Kind.FENCED));
    }

    static RFuture<Long> tryLockAndGetToken(RLock l, long wait, long lease, long owner) {
        throw new UnsupportedOperationException(unsupported(Options.Kind.FENCED));
    }

    static RFuture<Long> token(RLock l) {
        throw new UnsupportedOperationException(unsupported(Options.Kind.FENCED));
    }

    /** Sentinel settings: Redisson's defaults; a password is refused. */
    static void sentinel(SentinelServersConfig s, String password) {
        if (!password.isEmpty()) {
            throw new UnsupportedOperationException("a Sentinel password needs Redisson 3.25.0 or later in lockcheck's driver");
        }
    }

    /** A client id of this process's (RedissonClient.getId is 3.9+). */
    static String clientId(RedissonClient r) {
        return Long.toHexString(ProcessHandle.current().pid()) + "-" + Integer.toHexString(System.identityHashCode(r));
    }

    /** Sets the connection settings every topology's config shares. */
    static void connection(Object servers, Connection c) {
        if (!c.user().isEmpty()) {
            throw new UnsupportedOperationException("a Redis ACL user needs Redisson 3.25.0 or later in lockcheck's driver");
        }
        LockcheckConnection.apply(servers, c.password(), c.clientName(), c.connectTimeoutMs(), c.commandTimeoutMs());
    }
}
