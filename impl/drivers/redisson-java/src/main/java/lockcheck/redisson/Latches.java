package lockcheck.redisson;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import lockcheck.driver.Replies;

import org.redisson.api.RCountDownLatch;
import org.redisson.api.RedissonClient;

/**
 * The latch requests (capability "latch", impl/driver/doc.go) on Redisson's
 * RCountDownLatch ({@code getCountDownLatch(name)}), served by
 * {@code --lock latch}.
 *
 * <ul>
 * <li>latch_trysetcount: {@code trySetCountAsync(count)}: ok, or fail when
 * the latch exists.
 * <li>latch_countdown: {@code countDownAsync()}: ok.
 * <li>latch_await: Redisson's {@code await(wait_ms, ms)} (async where the
 * release has it: {@link Compat#awaitLatch}), bounded by what is left of
 * timeout_ms less 250 ms (wait_ms below 0: that alone): ok when the latch
 * opened, else fail.
 * <li>latch_count: ok with "count", {@code getCountAsync()}.
 * </ul>
 * Nothing is owned: any owner may count down.
 */
final class Latches {
    /**
     * How long before its deadline an await gives up (LatchGiveUp in
     * impl/driver): Redisson's await times out on a timer wheel of 100 ms
     * ticks, which answered 50 ms before the deadline too late.
     */
    private static final long GIVE_UP_MS = 250;

    private Latches() {
    }

    static boolean serves(String op) {
        return op.startsWith("latch_");
    }

    static ObjectNode handle(RedissonClient redisson, String op, JsonNode req, long deadline) throws Exception {
        RCountDownLatch l = PermitSemaphores.redisson(redisson).getCountDownLatch(PermitSemaphores.name(req, "latch"));
        return switch (op) {
            case "latch_trysetcount" -> Boolean.TRUE.equals(Locks.await(l.trySetCountAsync(req.path("count").asLong(0)), deadline)) ? Replies.ok() : Replies.fail();
            case "latch_countdown" -> {
                Locks.await(l.countDownAsync(), deadline);
                yield Replies.ok();
            }
            case "latch_await" -> {
                long left = Math.max(0, (deadline - System.nanoTime()) / 1_000_000 - GIVE_UP_MS);
                long wait = req.path("wait_ms").asLong(0);
                yield Compat.awaitLatch(l, wait < 0 ? left : Math.min(wait, left), deadline) ? Replies.ok() : Replies.fail();
            }
            case "latch_count" -> Replies.ok().put("count", Locks.await(l.getCountAsync(), deadline));
            default -> Replies.error("unknown op \"" + op + "\"", false);
        };
    }
}
