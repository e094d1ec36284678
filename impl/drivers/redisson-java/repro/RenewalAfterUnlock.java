import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Redisson's RLock of one kind ("spin": getSpinLock, "lock": getLock),
 * library alone: does a hold's watchdog renew it after the hold was
 * released? lockWatchdogTimeout 1500 ms (a renewal every 500 ms). One
 * thread, ROUNDS times: lock(), unlock() at once, then 700 ms idle while a
 * MONITOR connection counts the renewal EVALs on the lock's key that carry
 * this thread's id (client UUID:thread) and are sent in the idle time
 * (from 20 ms after the unlock returned: nothing of this thread's holds
 * the lock, so each renews a hold that is gone). A watchdog that unlock
 * cancels sends none. Prints "RESULT renewed-after-unlock N of ROUNDS
 * rounds" or "RESULT none", with Redisson's version and the kind.
 *
 * <pre>java -cp 'target/lib/*' RenewalAfterUnlock.java PORT KIND ROUNDS</pre>
 */
public final class RenewalAfterUnlock {
    public static void main(String[] args) throws Exception {
        if (args.length != 3 || !(args[1].equals("spin") || args[1].equals("lock"))) {
            System.err.println("usage: RenewalAfterUnlock PORT spin|lock ROUNDS");
            System.exit(2);
        }
        int port = Integer.parseInt(args[0]);
        String kind = args[1];
        int rounds = Integer.parseInt(args[2]);
        Config cfg = new Config();
        cfg.setLockWatchdogTimeout(1500);
        cfg.useSingleServer().setAddress("redis://127.0.0.1:" + port);
        RedissonClient client = Redisson.create(cfg);
        try (Socket monitor = new Socket("127.0.0.1", port)) {
            String key = "renewal-after-unlock";
            RLock lock = kind.equals("spin") ? client.getSpinLock(key) : client.getLock(key);
            monitor.setSoTimeout(100);
            OutputStream out = monitor.getOutputStream();
            out.write("*1\r\n$7\r\nMONITOR\r\n".getBytes(StandardCharsets.UTF_8));
            BufferedReader in = new BufferedReader(new InputStreamReader(monitor.getInputStream(), StandardCharsets.UTF_8));
            in.readLine(); // +OK
            String owner = ":" + Thread.currentThread().getId() + "\"";
            int rounds1 = 0;
            long renewals = 0;
            String example = null;
            for (int r = 0; r < rounds; r++) {
                lock.lock();
                lock.unlock();
                drain(in, TimeUnit.MILLISECONDS.toNanos(20), null); // the unlock's own commands
                long[] n = {0};
                String[] seen = {null};
                drain(in, TimeUnit.MILLISECONDS.toNanos(700), line -> {
                    if (line.contains("\"EVAL") && line.contains(key) && line.contains(owner) && line.contains("pexpire")) {
                        n[0]++;
                        seen[0] = line;
                    }
                });
                if (n[0] > 0) {
                    rounds1++;
                    renewals += n[0];
                    example = seen[0];
                }
            }
            System.out.printf("RESULT %s (Redisson %s, %s: %d renewals of the thread's hold in the idle 700 ms after %d of %d lock-unlock rounds)%n",
                    rounds1 == 0 ? "none" : "renewed-after-unlock " + rounds1 + " of " + rounds + " rounds",
                    Redisson.class.getPackage().getImplementationVersion(), kind, renewals, rounds1, rounds);
            if (example != null) {
                System.out.println("  " + example.substring(0, Math.min(example.length(), 200)));
            }
        } finally {
            client.shutdown();
        }
    }

    /** drain reads monitor lines for d nanoseconds, handing each to f (null: dropped). */
    private static void drain(BufferedReader in, long d, java.util.function.Consumer<String> f) throws IOException {
        long end = System.nanoTime() + d;
        while (System.nanoTime() < end) {
            try {
                String line = in.readLine();
                if (line == null) {
                    return;
                }
                if (f != null) {
                    f.accept(line);
                }
            } catch (java.net.SocketTimeoutException e) {
                // nothing in 100 ms: look at the clock again
            }
        }
    }
}
