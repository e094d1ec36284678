import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Redisson's RLock, library alone: does the watchdog send a renewal after
 * its hold was released? lockWatchdogTimeout 1500 ms (a renewal every
 * 500 ms). One thread takes the lock DEPTH times (reentrantly when DEPTH
 * is more than 1), unlocks it as many times at once, and then sleeps 1.5 s
 * while a MONITOR connection counts the EVALs on the lock's key after the
 * last unlock returned (nothing else uses the key, so each is a renewal
 * of a hold that is gone), and how many of them carry this thread's id
 * (client UUID:thread). A watchdog that unlock cancels sends none. Prints
 * "RESULT renewed-after-unlock N" or "RESULT none", with Redisson's
 * version.
 *
 * <pre>java -cp 'target/lib/*' ReentryRenewalAfterUnlock.java PORT DEPTH</pre>
 */
public final class ReentryRenewalAfterUnlock {
    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: ReentryRenewalAfterUnlock PORT DEPTH");
            System.exit(2);
        }
        int port = Integer.parseInt(args[0]);
        int depth = Integer.parseInt(args[1]);
        Config cfg = new Config();
        cfg.setLockWatchdogTimeout(1500);
        cfg.useSingleServer().setAddress("redis://127.0.0.1:" + port);
        RedissonClient client = Redisson.create(cfg);
        try (Socket monitor = new Socket("127.0.0.1", port)) {
            String key = "reentry-renewal";
            RLock lock = client.getLock(key);
            monitor.setSoTimeout(100);
            OutputStream out = monitor.getOutputStream();
            out.write("*1\r\n$7\r\nMONITOR\r\n".getBytes(StandardCharsets.UTF_8));
            BufferedReader in = new BufferedReader(new InputStreamReader(monitor.getInputStream(), StandardCharsets.UTF_8));
            in.readLine(); // +OK
            for (int i = 0; i < depth; i++) {
                lock.lock();
            }
            for (int i = 0; i < depth; i++) {
                lock.unlock();
            }
            String owner = ":" + Thread.currentThread().getId();
                        List<String> after = new ArrayList<>();
            drain(in, TimeUnit.MILLISECONDS.toNanos(20), null); // the unlock's own commands
            drain(in, TimeUnit.MILLISECONDS.toNanos(1500), line -> {
                if (line.contains("\"EVAL") && line.contains(key)) {
                    after.add(line);
                }
            });
            long mine = after.stream().filter(l -> l.contains(owner)).count();
            System.out.printf("RESULT %s (Redisson %s, depth %d: %d EVALs on the key in 1.5 s after the last unlock, %d with the owner's id)%n",
                    after.isEmpty() ? "none" : "renewed-after-unlock " + after.size(),
                    Redisson.class.getPackage().getImplementationVersion(), depth, after.size(), mine);
            for (String line : after) {
                System.out.println("  " + line.substring(0, Math.min(line.length(), 160)));
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
