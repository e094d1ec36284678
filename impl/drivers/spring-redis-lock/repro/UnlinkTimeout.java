import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;

/**
 * RedisLockRegistry (spring-integration-redis 6.5.5) over Lettuce, the
 * library alone: unlock() runs its UNLINK script and takes any exception
 * from it (here a command timeout) for "UNLINK is not supported", then runs
 * its DEL script. When the UNLINK script did run in Redis (its reply came
 * after the timeout), the DEL script finds the key gone, or another owner's,
 * and unlock() throws ConcurrentModificationException "Lock was released in
 * the store due to expiration", though the lease never ran out: the key was
 * deleted by this very unlock.
 *
 * <p>Redis runs the UNLINK script late because of CLIENT PAUSE WRITE (1.5 s:
 * longer than A's 1 s command timeout, so the UNLINK script times out, and
 * short enough for the DEL script's reply to come in time). In lockcheck's
 * partition-short the script was sent into a black hole that healed (with
 * reconnects) shortly before the timeout: Lettuce re-sends commands that
 * were in flight on the new connection (its at-least-once default), and
 * Redis ran the script about when the client gave up on it.
 *
 * <p>Usage: java -cp ../target/lib/*:. UnlinkTimeout PORT
 */
public class UnlinkTimeout {
    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        // Owner A: a 1 s command timeout (lockcheck's driver's); owner B: Lettuce's default.
        LettuceConnectionFactory fa = factory(port, Duration.ofSeconds(1));
        LettuceConnectionFactory fb = factory(port, Duration.ofSeconds(60));
        RedisLockRegistry a = new RedisLockRegistry(fa, "repro", 10_000); // 10 s lease, no renewal
        RedisLockRegistry b = new RedisLockRegistry(fb, "repro", 10_000);
        Lock warm = a.obtain("warm"); // loads the obtain and UNLINK scripts, as a service that has run a while has
        warm.lock();
        warm.unlock();
        Lock la = a.obtain("x");
        Lock lb = b.obtain("x");
        la.lock();
        System.out.println("A holds repro:x, pttl " + pttl(fa) + " ms");

        long t0 = System.nanoTime();
        pauseWrites(port, 1500);
        CompletableFuture<Long> bGranted = CompletableFuture.supplyAsync(() -> {
            try {
                Thread.sleep(1200); // B asks after A's UNLINK timed out
                return lb.tryLock(5, TimeUnit.SECONDS) ? ms(t0) : -1L;
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        String outcome;
        try {
            la.unlock();
            outcome = "returned";
        } catch (RuntimeException e) {
            outcome = "threw " + e.getClass().getSimpleName() + ": " + e.getMessage();
        }
        System.out.println("A's unlock (" + ms(t0) + " ms after a 1.5 s CLIENT PAUSE WRITE): " + outcome);
        System.out.println("B's tryLock granted at " + bGranted.get() + " ms");
        System.out.println("repro:x after: pttl " + pttl(fa) + " ms (B's obtain script set it: it sets a key only when absent)");
        a.destroy();
        b.destroy();
        fa.destroy();
        fb.destroy();
    }

    private static LettuceConnectionFactory factory(int port, Duration timeout) {
        LettuceConnectionFactory f = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", port),
                LettuceClientConfiguration.builder().commandTimeout(timeout).build());
        f.afterPropertiesSet();
        f.start();
        return f;
    }

    /** CLIENT PAUSE ms WRITE on a connection of its own (raw RESP: the factories' connections stay untouched). */
    private static void pauseWrites(int port, int ms) throws Exception {
        try (Socket s = new Socket("127.0.0.1", port)) {
            String n = String.valueOf(ms);
            String cmd = "*4\r\n$6\r\nCLIENT\r\n$5\r\nPAUSE\r\n$" + n.length() + "\r\n" + n + "\r\n$5\r\nWRITE\r\n";
            OutputStream out = s.getOutputStream();
            out.write(cmd.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            byte[] reply = new byte[5];
            if (in.readNBytes(reply, 0, 5) != 5 || !new String(reply, StandardCharsets.US_ASCII).equals("+OK\r\n")) {
                throw new IllegalStateException("CLIENT PAUSE: unexpected reply");
            }
        }
    }

    private static long pttl(LettuceConnectionFactory f) {
        try (RedisConnection c = f.getConnection()) {
            return c.keyCommands().pTtl("repro:x".getBytes(StandardCharsets.UTF_8));
        }
    }

    private static long ms(long t0) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    }
}
