import java.util.concurrent.TimeUnit;
import org.redisson.Redisson;
import org.redisson.api.*;
import org.redisson.config.Config;

/**
 * acquireAsync(lease) on a permit semaphore with one or two free permits
 * and no other client, beside tryAcquireAsync and acquire: one line per
 * call, its time and the permits left (psem-acquire-async.sh).
 */
public class PsemAcquireAsync {
    public static void main(String[] a) throws Exception {
        Config c = new Config();
        c.useSingleServer().setAddress("redis://127.0.0.1:" + a[0]);
        RedissonClient r = Redisson.create(c);
        try {
            for (String mode : new String[] {"acquireAsync(2000ms) 1 free", "acquireAsync(2000ms) 2 free", "acquireAsync() no lease 1 free", "tryAcquireAsync(5000,2000ms) 1 free", "acquire(2000ms) 1 free"}) {
                RPermitExpirableSemaphore s = r.getPermitExpirableSemaphore("psem-" + mode.hashCode() + "-" + System.nanoTime());
                s.trySetPermits(mode.endsWith("2 free") ? 2 : 1);
                long t0 = System.nanoTime();
                String id;
                if (mode.startsWith("acquireAsync()")) {
                    try { id = s.acquireAsync().get(5, TimeUnit.SECONDS); } catch (java.util.concurrent.TimeoutException e) { id = "NONE (no answer in 5 s)"; }
                } else if (mode.startsWith("acquireAsync")) id = s.acquireAsync(2000, TimeUnit.MILLISECONDS).get(10, TimeUnit.SECONDS);
                else if (mode.startsWith("tryAcquireAsync")) id = s.tryAcquireAsync(5000, 2000, TimeUnit.MILLISECONDS).get(10, TimeUnit.SECONDS);
                else id = s.acquire(2000, TimeUnit.MILLISECONDS);
                long ms = (System.nanoTime() - t0) / 1_000_000;
                int avail = s.availablePermits();
                System.out.printf("%-30s took %5d ms, id %s, availablePermits after %d%n", mode, ms, id, avail);
            }
        } finally {
            r.shutdown();
        }
    }
}
