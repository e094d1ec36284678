package lockcheck.redisson;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import lockcheck.driver.Replies;

import org.redisson.api.RSemaphore;
import org.redisson.api.RedissonClient;

import java.util.concurrent.TimeUnit;

/**
 * The semaphore requests (capability "semaphore", impl/driver/doc.go) on
 * Redisson's RSemaphore ({@code getSemaphore(name)}), served by
 * {@code --lock semaphore}. "permits" is the request's permit count.
 *
 * <ul>
 * <li>sem_tryacquire: {@code tryAcquireAsync(permits, wait_ms)}: ok, or fail
 * when Redisson says false.
 * <li>sem_acquire: Redisson's acquire, bounded: {@code tryAcquireAsync} with
 * what is left of timeout_ms less 50 ms, so that it gives up cleanly (fail).
 * <li>sem_release, sem_addpermits: {@code releaseAsync} and
 * {@code addPermitsAsync}: ok.
 * <li>sem_trysetpermits: {@code trySetPermitsAsync}: ok, or fail when the
 * semaphore was set already.
 * <li>sem_available: ok with "count", {@code availablePermitsAsync}.
 * </ul>
 * Nothing is owned: the owner thread serving a request does not matter.
 */
final class Semaphores {
    /** How long before its deadline a blocking acquire gives up. */
    private static final long GIVE_UP_MS = 50;

    private Semaphores() {
    }

    static boolean serves(String op) {
        return op.startsWith("sem_");
    }

    static ObjectNode handle(RedissonClient redisson, String op, JsonNode req, long deadline) throws Exception {
        if (redisson == null) {
            throw new IllegalStateException("no hello yet");
        }
        String name = req.path("name").asText("");
        if (name.isEmpty()) {
            throw new IllegalArgumentException("request without semaphore name");
        }
        RSemaphore s = redisson.getSemaphore(name);
        int n = req.path("permits").asInt(0);
        return switch (op) {
            case "sem_tryacquire" -> okOrFail(Locks.await(s.tryAcquireAsync(n, Math.max(0, req.path("wait_ms").asLong(0)), TimeUnit.MILLISECONDS), deadline));
            case "sem_acquire" -> {
                long left = (deadline - System.nanoTime()) / 1_000_000 - GIVE_UP_MS;
                yield okOrFail(Locks.await(s.tryAcquireAsync(n, Math.max(0, left), TimeUnit.MILLISECONDS), deadline));
            }
            case "sem_release" -> {
                Locks.await(s.releaseAsync(n), deadline);
                yield Replies.ok();
            }
            case "sem_addpermits" -> {
                Compat.addPermits(s, n, deadline);
                yield Replies.ok();
            }
            case "sem_trysetpermits" -> okOrFail(Locks.await(s.trySetPermitsAsync(n), deadline));
            case "sem_available" -> Replies.ok().put("count", Compat.availablePermits(s, deadline));
            default -> Replies.error("unknown op \"" + op + "\"", false);
        };
    }

    private static ObjectNode okOrFail(Boolean ok) {
        return Boolean.TRUE.equals(ok) ? Replies.ok() : Replies.fail();
    }
}
