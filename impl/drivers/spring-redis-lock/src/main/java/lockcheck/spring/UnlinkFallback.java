package lockcheck.spring;

import org.springframework.integration.redis.util.RedisLockRegistry;

import java.lang.reflect.Field;

/**
 * Whether a RedisLockRegistry still unlocks with its UNLINK script: the
 * library's private flag {@code unlinkAvailable}, read by reflection (no
 * getter). A final unlock runs the UNLINK script first while the flag is
 * set; when that script throws anything, a command timeout included, the
 * library clears the flag for good ("not supported on the Redis server?")
 * and runs its DEL script. If the UNLINK script ran after all (Redis
 * answered after the timeout, or Lettuce re-sent it on a new connection), it
 * released the hold, and the DEL script finds the key gone or another
 * owner's: the library then throws ConcurrentModificationException "Lock was
 * released in the store due to expiration", which is not what happened
 * (repro/UnlinkTimeout.java). So a ConcurrentModificationException from an
 * unlock during which this flag went from set to clear says nothing about
 * the hold: its outcome is unknown.
 *
 * <p>Spring Integration 7 has no such fallback (its RedisLock has no
 * {@code removeLockKeyInnerDelete}: an unlock runs the UNLINK script only,
 * and a failed script is that unlock's error): then there is nothing to
 * watch, and {@link #unlinkFirst} is false.
 */
final class UnlinkFallback {
    private static final String FIELD = "unlinkAvailable";
    private static final Field FLAG = flag();
    private static final boolean FALLBACK = hasDeleteFallback();

    private UnlinkFallback() {
    }

    /** Fails when the library has no such flag (another spring-integration-redis than the pinned one). */
    static void check() {
        if (FALLBACK && FLAG == null) {
            throw new IllegalStateException("RedisLockRegistry has no boolean field " + FIELD + " (spring-integration-redis "
                    + Driver.libraryVersion() + "): the driver cannot tell a timed-out UNLINK from an expired hold");
        }
    }

    /** Whether r's next final unlock runs the UNLINK script first. */
    static boolean unlinkFirst(RedisLockRegistry r) {
        if (!FALLBACK) {
            return false;
        }
        check();
        try {
            return FLAG.getBoolean(r);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("reading RedisLockRegistry." + FIELD, e);
        }
    }

    /** Whether the library's lock falls back to a DEL script (6.x and older). */
    private static boolean hasDeleteFallback() {
        for (Class<?> c : RedisLockRegistry.class.getDeclaredClasses()) {
            for (var m : c.getDeclaredMethods()) {
                if (m.getName().equals("removeLockKeyInnerDelete")) {
                    return true;
                }
            }
        }
        return false;
    }

    private static Field flag() {
        try {
            Field f = RedisLockRegistry.class.getDeclaredField(FIELD);
            if (f.getType() != boolean.class) {
                return null;
            }
            f.setAccessible(true);
            return f;
        } catch (NoSuchFieldException | RuntimeException e) {
            return null;
        }
    }
}
