package lockcheck.redisson;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import lockcheck.driver.Replies;

import org.redisson.api.RFuture;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RedissonClient;

import java.util.concurrent.TimeUnit;

/**
 * The permit semaphore requests (capability "permit-semaphore",
 * impl/driver/doc.go) on Redisson's RPermitExpirableSemaphore
 * ({@code getPermitExpirableSemaphore(name)}), served by
 * {@code --lock permit-semaphore}. Every call is one that Redisson 3.8.0 and
 * the pom's Redisson both have. A lease_ms of 0 or less is Redisson's -1: a
 * permit that never expires.
 *
 * <ul>
 * <li>psem_tryacquire: {@code tryAcquireAsync(wait_ms, lease, ms)}: ok with
 * "permit_id", or fail when Redisson answers null.
 * <li>psem_acquire: Redisson's acquire, bounded: {@code tryAcquireAsync}
 * with what is left of timeout_ms less 50 ms, so that it gives up cleanly
 * (fail).
 * <li>psem_release: {@code tryReleaseAsync(permit_id)}: ok, or fail when
 * Redisson says false (the id is not held, or, in the releases that check,
 * its lease ran out); an id missing or Redisson cannot parse is fail too.
 * <li>psem_addpermits, psem_trysetpermits, psem_available: as the sem_*
 * requests ({@link Semaphores}).
 * </ul>
 * Nothing is owned: any owner may release any permit id.
 */
final class PermitSemaphores {
    /** How long before its deadline a blocking acquire gives up. */
    private static final long GIVE_UP_MS = 50;

    private PermitSemaphores() {
    }

    static boolean serves(String op) {
        return op.startsWith("psem_");
    }

    static ObjectNode handle(RedissonClient redisson, String op, JsonNode req, long deadline) throws Exception {
        RPermitExpirableSemaphore s = redisson(redisson).getPermitExpirableSemaphore(name(req, "semaphore"));
        long lease = req.path("lease_ms").asLong(0);
        long leaseArg = lease > 0 ? lease : -1;
        return switch (op) {
            case "psem_tryacquire" -> granted(Locks.await(s.tryAcquireAsync(Math.max(0, req.path("wait_ms").asLong(0)), leaseArg, TimeUnit.MILLISECONDS), deadline));
            case "psem_acquire" -> {
                long left = (deadline - System.nanoTime()) / 1_000_000 - GIVE_UP_MS;
                yield granted(Locks.await(s.tryAcquireAsync(Math.max(0, left), leaseArg, TimeUnit.MILLISECONDS), deadline));
            }
            case "psem_release" -> release(s, req.path("permit_id").asText(""), deadline);
            case "psem_addpermits" -> {
                Locks.await(s.addPermitsAsync(req.path("permits").asInt(0)), deadline);
                yield Replies.ok();
            }
            case "psem_trysetpermits" -> Boolean.TRUE.equals(Locks.await(s.trySetPermitsAsync(req.path("permits").asInt(0)), deadline)) ? Replies.ok() : Replies.fail();
            case "psem_available" -> Replies.ok().put("count", Locks.await(s.availablePermitsAsync(), deadline));
            default -> Replies.error("unknown op \"" + op + "\"", false);
        };
    }

    /** The client hello connected; before hello, an error. */
    static RedissonClient redisson(RedissonClient r) {
        if (r == null) {
            throw new IllegalStateException("no hello yet");
        }
        return r;
    }

    /** The request's "name", which must be set (what names: the object kind). */
    static String name(JsonNode req, String what) {
        String name = req.path("name").asText("");
        if (name.isEmpty()) {
            throw new IllegalArgumentException("request without " + what + " name");
        }
        return name;
    }

    private static ObjectNode granted(String id) {
        return id == null ? Replies.fail() : Replies.ok().put("permit_id", id);
    }

    /**
     * tryRelease of id. Redisson parses the id before it sends anything
     * (the pom's: hex), throwing IllegalArgumentException: such an id names
     * no permit, and is answered fail as one not held.
     */
    private static ObjectNode release(RPermitExpirableSemaphore s, String id, long deadline) throws Exception {
        if (id.isEmpty()) {
            return Replies.fail();
        }
        RFuture<Boolean> f;
        try {
            f = s.tryReleaseAsync(id);
        } catch (IllegalArgumentException e) {
            return Replies.fail();
        }
        return Boolean.TRUE.equals(Locks.await(f, deadline)) ? Replies.ok() : Replies.fail();
    }
}
