import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

/**
 * Redisson's RLock, library alone: the lock handed over, again and again,
 * from a holder to an asynchronous waiter. The holder takes the lock
 * (lockAsync with owner id H); the waiter calls lockAsync(LEASE_MS, ms, W);
 * 0 to 5 ms after that call (a random offset, seeded) the holder unlocks,
 * and the waiter unlocks as soon as it has the lock. The next handover
 * starts once the waiter has had it. Only these two owners use the lock, so
 * a waiter granted more than SLEPT_MS after the holder's unlock returned
 * slept beside the free lock: it missed the unlock's message and waited out
 * the ttl its last attempt was told (about LEASE_MS). Prints each such
 * handover with its wait and how many clients were subscribed to the lock's
 * channel while it slept (1: the waiter's, which missed the message; 0: its
 * subscription was lost), and a RESULT line with the count.
 *
 * <p>BUSY threads (default 0) spin beside the handovers, so that the
 * client's threads are preempted as on a loaded machine: the window
 * between the waiter's check of its entry's latch and its listener's
 * registration is a few instructions wide, and a preemption there widens it.
 *
 * <p>CLIENTS one (the default): holder and waiter are two owner ids of one
 * RedissonClient, as two threads of one application (they share the lock's
 * pub/sub entry); two: each has a client of its own.
 *
 * <pre>java -cp 'target/lib/*' LockHandover.java PORT HANDOVERS SEED [one|two [BUSY]]</pre>
 */
public final class LockHandover {
    /** The lock's lease, in ms: what a waiter that missed the message sleeps. */
    private static final long LEASE_MS = 2000;
    /** A grant this long after the unlock is a missed message, in ms. */
    private static final long SLEPT_MS = 500;
    private static final long HOLDER = 1;
    private static final long WAITER = 2;

    /** The Redisson release on the class path, from its jar's name (old jars do not say it in their manifest). */
    private static String release() {
        String jar = new java.io.File(Redisson.class.getProtectionDomain().getCodeSource().getLocation().getPath()).getName();
        return jar.replaceAll("^redisson-(.*)\\.jar$", "$1");
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 3 || args.length > 5) {
            System.err.println("usage: LockHandover PORT HANDOVERS SEED [one|two [BUSY]]");
            System.exit(2);
        }
        String clients = args.length >= 4 ? args[3] : "one";
        int busy = args.length == 5 ? Integer.parseInt(args[4]) : 0;
        if (!clients.equals("one") && !clients.equals("two")) {
            System.err.println("LockHandover: CLIENTS is one or two, not " + clients);
            System.exit(2);
        }
        Config cfg = new Config();
        // A lock needs no codec; setting one spares an old release its
        // default (FstCodec), which Java 17 does not let start.
        cfg.setCodec(StringCodec.INSTANCE);
        cfg.useSingleServer().setAddress("redis://127.0.0.1:" + args[0]);
        int handovers = Integer.parseInt(args[1]);
        Random rng = new Random(Long.parseLong(args[2]));
        java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
        for (int i = 0; i < busy; i++) {
            Thread t = new Thread(() -> {
                long x = 0;
                while (!done.get()) {
                    x += System.nanoTime() & 1;
                }
            });
            t.setDaemon(true);
            t.start();
        }
        RedissonClient h = Redisson.create(cfg);
        RedissonClient w = clients.equals("two") ? Redisson.create(cfg) : h;
        try {
            String name = "lock-handover-" + System.nanoTime();
            RLock hl = h.getLock(name);
            RLock wl = w.getLock(name);
            int slept = 0;
            for (int i = 0; i < handovers; i++) {
                hl.lockAsync(LEASE_MS, TimeUnit.MILLISECONDS, HOLDER).get();
                long offset = (long) (rng.nextDouble() * 5_000_000);
                long called = System.nanoTime();
                CompletableFuture<Void> got = wl.lockAsync(LEASE_MS, TimeUnit.MILLISECONDS, WAITER).toCompletableFuture();
                LockSupport.parkNanos(called + offset - System.nanoTime());
                hl.unlockAsync(HOLDER).get();
                long unlocked = System.nanoTime();
                long subscribers = -1;
                try {
                    got.get(SLEPT_MS, TimeUnit.MILLISECONDS);
                } catch (java.util.concurrent.TimeoutException asleep) {
                    // Still waiting beside the free lock: is its client
                    // still subscribed to the lock's channel (a missed
                    // message) or not (a lost subscription)?
                    subscribers = h.getTopic("redisson_lock__channel:{" + name + "}").countSubscribers();
                    got.get(3 * LEASE_MS, TimeUnit.MILLISECONDS);
                }
                long waited = (System.nanoTime() - unlocked) / 1_000_000;
                wl.unlockAsync(WAITER).get();
                if (waited > SLEPT_MS) {
                    slept++;
                    System.out.printf("handover %d: lockAsync granted %d ms after the unlock (unlock %.2f ms after the call; %d subscriber(s) of the lock's channel while it slept)%n",
                            i, waited, offset / 1e6, subscribers);
                }
            }
            System.out.printf("RESULT Redisson %s, %s client(s), %d busy thread(s): %d of %d handovers slept beside the free lock (granted > %d ms after the unlock)%n",
                    release(), clients, busy, slept, handovers, SLEPT_MS);
        } finally {
            done.set(true);
            h.shutdown();
            if (w != h) {
                w.shutdown();
            }
        }
    }
}
