import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.redisson.Redisson;
import org.redisson.api.RFuture;
import org.redisson.api.RSemaphore;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Redisson's RSemaphore, library alone: one permit handed over, again and
 * again. Client h (the holder) takes the permit; client w (the waiter)
 * calls tryAcquireAsync(1, 2500 ms); 0 to 5 ms after that call (a random
 * offset, seeded) h releases the permit, and w gives it back as soon as it
 * has it. The next handover starts once w's call returned. A waiter that
 * missed the release's message sleeps until its wait ends beside a free
 * permit and answers false: a refusal that no other client explains (only
 * h and w use the semaphore, and h released). Prints each refusal with how
 * long it waited and the permits available then, and a RESULT line with
 * the count.
 *
 * <pre>java -cp 'target/lib/*' SemaphoreHandover.java PORT HANDOVERS SEED</pre>
 */
public final class SemaphoreHandover {
    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: SemaphoreHandover PORT HANDOVERS SEED");
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
            RSemaphore hs = h.getSemaphore(name);
            RSemaphore ws = w.getSemaphore(name);
            hs.trySetPermits(1);
            int refused = 0;
            for (int i = 0; i < handovers; i++) {
                hs.acquire();
                long offset = (long) (rng.nextDouble() * 5_000_000);
                long called = System.nanoTime();
                RFuture<Boolean> got = ws.tryAcquireAsync(1, 2500, TimeUnit.MILLISECONDS);
                LockSupport.parkNanos(called + offset - System.nanoTime());
                hs.release();
                if (got.get()) {
                    ws.release();
                    continue;
                }
                refused++;
                System.out.printf("handover %d: tryAcquireAsync refused after %d ms (release %.2f ms after the call), %d permit(s) available%n",
                        i, (System.nanoTime() - called) / 1_000_000, offset / 1e6, hs.availablePermits());
            }
            System.out.printf("RESULT Redisson %s: %d of %d handovers refused beside a free permit%n",
                    Redisson.class.getPackage().getImplementationVersion(), refused, handovers);
        } finally {
            h.shutdown();
            w.shutdown();
        }
    }
}
