package lockcheck.redisson;

import org.redisson.api.RFuture;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;
import org.redisson.config.LockcheckConnection;
import org.redisson.config.SentinelServersConfig;

/**
 * The parts of Redisson's API that differ between its releases, for the
 * older releases this source set is built against (src/compat/legacy:
 * 3.8.0 to 3.23.x; build.sh picks the set by version). Against
 * src/compat/current it lacks: the fenced and spin locks (the driver's hello
 * refuses them), the fair lock's queueing time (its replies carry no
 * "enqueued"), Sentinel and ACL passwords (refused) and a subscription
 * timeout of its own (Redisson's default applies).
 */
final class Compat {
    private Compat() {
    }

    /** Why kind cannot be served by this Redisson, or null when it can. */
    static String unsupported(Options.Kind kind) {
        return switch (kind) {
            case FENCED, SPIN -> "redisson-" + kind.name().toLowerCase() + " needs Redisson 3.25.0 or later (lockcheck's driver: src/compat/current), this is "
                    + Driver.redissonVersion();
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
        throw new UnsupportedOperationException(unsupported(Options.Kind.SPIN));
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
