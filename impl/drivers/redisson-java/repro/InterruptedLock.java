import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisException;
import org.redisson.config.Config;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * RLock.lockInterruptibly(), library alone: a thread interrupted while its
 * lockInterruptibly() is in its first acquire command can get a
 * RedisException (wrapping the InterruptedException) instead of an
 * InterruptedException, and the lock may be taken all the same, for that
 * thread, with the watchdog renewing it. The thread never learns it holds
 * the lock, so nothing unlocks it, and the renewal keeps it held for as long
 * as the client lives.
 *
 * <p>TRIALS times, on a fresh lock each time, a thread calls
 * lockInterruptibly() on the free lock and the main thread interrupts it
 * 0-300 µs later. A thread granted the lock unlocks it at once. Then, 3 and
 * 6 watchdog timeouts (lockWatchdogTimeout 1500 ms) later, each lock whose
 * call threw a RedisException is looked at (isLocked). The same for
 * tryLock(1000, -1, MILLISECONDS), whose renewal after an interrupt
 * Redisson 3.16.3 stopped (redisson#2714), and for
 * lockInterruptibly(2000, MILLISECONDS), the control, whose orphans run
 * out with their lease. Prints one RESULT line per call: the outcomes, and
 * how many locks are still held at 4.5 s and at 9 s. KIND fenced, read or
 * write makes each lock an RFencedLock, or an RReadWriteLock's read or
 * write lock, instead of an RLock: their acquires share RLock's path
 * (RedissonBaseLock).
 *
 * <pre>java -cp 'target/lib/*' InterruptedLock.java PORT [TRIALS] [lock|fenced|read|write]</pre>
 */
public final class InterruptedLock {
    private static final long WATCHDOG_MS = 1500;

    public static void main(String[] args) throws Exception {
        if (args.length < 1 || args.length > 3 || (args.length == 3 && !args[2].matches("lock|fenced|read|write"))) {
            System.err.println("usage: InterruptedLock PORT [TRIALS] [lock|fenced|read|write]");
            System.exit(2);
        }
        int trials = args.length >= 2 ? Integer.parseInt(args[1]) : 200;
        kind = args.length == 3 ? args[2] : "lock";
        Config cfg = new Config();
        cfg.setLockWatchdogTimeout(WATCHDOG_MS);
        cfg.useSingleServer().setAddress("redis://127.0.0.1:" + args[0]);
        RedissonClient r = Redisson.create(cfg);
        try {
            report(r, "lockInterruptibly()", l -> {
                l.lockInterruptibly();
                return true;
            }, trials);
            report(r, "tryLock(1000, -1, MILLISECONDS)", l -> l.tryLock(1000, -1, TimeUnit.MILLISECONDS), trials);
            report(r, "lockInterruptibly(2000, MILLISECONDS) (control)", l -> {
                l.lockInterruptibly(2000, TimeUnit.MILLISECONDS);
                return true;
            }, trials);
        } finally {
            r.shutdown();
        }
    }

    /** The lock kind: an RLock, a fenced lock, or a read-write lock's read or write lock. */
    private static String kind = "lock";

    private static RLock lockOf(RedissonClient r, String name) {
        return switch (kind) {
            case "read" -> r.getReadWriteLock(name).readLock();
            case "write" -> r.getReadWriteLock(name).writeLock();
            case "fenced" -> r.getFencedLock(name);
            default -> r.getLock(name);
        };
    }

    /** A call that may be interrupted: true when granted. */
    interface Acquire {
        boolean make(RLock l) throws InterruptedException;
    }

    private static void report(RedissonClient r, String label, Acquire call, int trials) throws Exception {
        int[] outcomes = new int[3]; // granted, interrupted, RedisException
        List<RLock> unknown = new ArrayList<>();
        for (int i = 0; i < trials; i++) {
            RLock l = lockOf(r, "intr-" + kind + "-" + label.hashCode() + "-" + i);
            int o = trial(l, call);
            outcomes[o]++;
            if (o == 2) {
                unknown.add(l);
            }
        }
        Thread.sleep(3 * WATCHDOG_MS);
        long at45 = unknown.stream().filter(RLock::isLocked).count();
        Thread.sleep(3 * WATCHDOG_MS);
        long at9 = unknown.stream().filter(RLock::isLocked).count();
        System.out.printf("RESULT %s %s: %d returned, %d InterruptedException, %d RedisException; of the last, %d locks still held at 4.5 s and %d at 9 s%n",
                kind, label, outcomes[0], outcomes[1], outcomes[2], at45, at9);
    }

    /** One interrupted call: 0 granted and unlocked (or refused), 1 InterruptedException, 2 RedisException. */
    private static int trial(RLock l, Acquire call) throws Exception {
        int[] outcome = new int[1];
        Thread t = new Thread(() -> {
            try {
                boolean granted = call.make(l);
                Thread.interrupted();
                if (granted) {
                    l.unlock();
                }
                outcome[0] = 0;
            } catch (InterruptedException e) {
                outcome[0] = 1;
            } catch (RedisException e) {
                outcome[0] = 2;
            }
        });
        t.start();
        long until = System.nanoTime() + ThreadLocalRandom.current().nextLong(300_000);
        while (System.nanoTime() < until) {
            Thread.onSpinWait();
        }
        t.interrupt();
        t.join();
        return outcome[0];
    }
}
