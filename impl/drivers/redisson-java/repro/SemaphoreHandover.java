import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.redisson.Redisson;
import org.redisson.api.RFuture;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RSemaphore;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Redisson's RSemaphore, or RPermitExpirableSemaphore, library alone: one
 * permit handed over, again and again. Client h (the holder) takes the
 * permit; client w (the waiter) calls tryAcquireAsync with a 2500 ms wait;
 * 0 to 5 ms after that call (a random offset, seeded) h releases the
 * permit, and w gives it back as soon as it has it. The next handover
 * starts once w's call returned. A waiter that missed the release's
 * message sleeps until its wait ends beside a free permit and answers
 * false (null): a refusal that no other client explains (only h and w use
 * the semaphore, and h released). Prints each refusal with how long it
 * waited and the permits available then, and a RESULT line with the count.
 *
 * <p>KIND semaphore (the default): getSemaphore, trySetPermits(1),
 * tryAcquireAsync(1, 2500, ms), release(). KIND permit: the permit
 * semaphore as lockcheck's driver calls it (PermitSemaphores.java):
 * getPermitExpirableSemaphore, trySetPermits(1), tryAcquireAsync(2500,
 * LEASE_MS, ms) for both clients' acquires, tryReleaseAsync(id) for both
 * releases.
 *
 * <pre>java -cp 'target/lib/*' SemaphoreHandover.java PORT HANDOVERS SEED [semaphore|permit]</pre>
 */
public final class SemaphoreHandover {
    /** The waiter's wait, in ms. */
    private static final long WAIT_MS = 2500;
    /** The permit kind's lease, in ms: longer than a handover. */
    private static final long LEASE_MS = 10_000;

    /** One client's handle on the semaphore: take answers whether it got the permit. */
    private interface Handle {
        /** Takes the permit, waiting as long as it must (the holder's acquire). */
        void acquire() throws Exception;

        /** Calls tryAcquireAsync with WAIT_MS; its future answers whether it got the permit. */
        java.util.concurrent.CompletableFuture<Boolean> tryAcquire();

        /** Releases the permit this handle holds. */
        void release() throws Exception;

        int available();
    }

    private static Handle semaphore(RedissonClient c, String name) {
        RSemaphore s = c.getSemaphore(name);
        return new Handle() {
            public void acquire() throws Exception {
                s.acquire();
            }

            public java.util.concurrent.CompletableFuture<Boolean> tryAcquire() {
                return s.tryAcquireAsync(1, WAIT_MS, TimeUnit.MILLISECONDS).toCompletableFuture();
            }

            public void release() {
                s.release();
            }

            public int available() {
                return s.availablePermits();
            }
        };
    }

    private static Handle permit(RedissonClient c, String name) {
        RPermitExpirableSemaphore s = c.getPermitExpirableSemaphore(name);
        return new Handle() {
            private volatile String id;

            public void acquire() throws Exception {
                // The permit is free when the holder asks (w gave it back
                // before this handover began): a null here is not the race.
                id = s.tryAcquireAsync(WAIT_MS, LEASE_MS, TimeUnit.MILLISECONDS).get();
                if (id == null) {
                    throw new IllegalStateException("holder's tryAcquire answered null with the permit free");
                }
            }

            public java.util.concurrent.CompletableFuture<Boolean> tryAcquire() {
                RFuture<String> f = s.tryAcquireAsync(WAIT_MS, LEASE_MS, TimeUnit.MILLISECONDS);
                return f.toCompletableFuture().thenApply(got -> {
                    id = got;
                    return got != null;
                });
            }

            public void release() throws Exception {
                if (!Boolean.TRUE.equals(s.tryReleaseAsync(id).get())) {
                    throw new IllegalStateException("tryRelease(" + id + ") answered false");
                }
            }

            public int available() {
                return s.availablePermits();
            }
        };
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 3 && args.length != 4) {
            System.err.println("usage: SemaphoreHandover PORT HANDOVERS SEED [semaphore|permit]");
            System.exit(2);
        }
        String kind = args.length == 4 ? args[3] : "semaphore";
        if (!kind.equals("semaphore") && !kind.equals("permit")) {
            System.err.println("SemaphoreHandover: KIND is semaphore or permit, not " + kind);
            System.exit(2);
        }
        Config cfg = new Config();
        cfg.useSingleServer().setAddress("redis://127.0.0.1:" + args[0]);
        int handovers = Integer.parseInt(args[1]);
        Random rng = new Random(Long.parseLong(args[2]));
        RedissonClient h = Redisson.create(cfg);
        RedissonClient w = Redisson.create(cfg);
        try {
            String name = "semaphore-handover-" + System.nanoTime();
            Handle hs;
            Handle ws;
            if (kind.equals("permit")) {
                hs = permit(h, name);
                ws = permit(w, name);
                h.getPermitExpirableSemaphore(name).trySetPermits(1);
            } else {
                hs = semaphore(h, name);
                ws = semaphore(w, name);
                h.getSemaphore(name).trySetPermits(1);
            }
            int refused = 0;
            for (int i = 0; i < handovers; i++) {
                hs.acquire();
                long offset = (long) (rng.nextDouble() * 5_000_000);
                long called = System.nanoTime();
                java.util.concurrent.CompletableFuture<Boolean> got = ws.tryAcquire();
                LockSupport.parkNanos(called + offset - System.nanoTime());
                hs.release();
                if (got.get()) {
                    ws.release();
                    continue;
                }
                refused++;
                System.out.printf("handover %d: tryAcquireAsync refused after %d ms (release %.2f ms after the call), %d permit(s) available%n",
                        i, (System.nanoTime() - called) / 1_000_000, offset / 1e6, hs.available());
            }
            System.out.printf("RESULT Redisson %s%s: %d of %d handovers refused beside a free permit%n",
                    Redisson.class.getPackage().getImplementationVersion(),
                    kind.equals("permit") ? " RPermitExpirableSemaphore" : "", refused, handovers);
        } finally {
            h.shutdown();
            w.shutdown();
        }
    }
}
