import org.redisson.Redisson;
import org.redisson.api.RFencedLock;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

import java.io.RandomAccessFile;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Redisson's RFencedLock.lockAndGetToken(), library alone: client a holds
 * the lock, client b calls lockAndGetToken() (wait without deadline), then
 * this JVM's wall clock steps by STEP_MS (the lockcheck clock shim, loaded
 * with LD_PRELOAD, reads the offset from CLOCK_FILE; monotonic clocks and
 * Redis are untouched). Redisson's wait starts from Long.MAX_VALUE ms and
 * subtracts System.currentTimeMillis() differences: a step back makes one
 * negative, the sum overflows below zero, and the future completes with
 * null while a still holds the lock. Prints "RESULT broken" when b's
 * lockAndGetToken() returned while a held the lock, "RESULT waits" when b
 * was still waiting 10 s after the step (then a unlocks and b must get the
 * next token). The watchdog timeout is lockcheck's 1500 ms, so b's timed
 * retry comes within 1.5 s; with Redisson's default (30 s) it comes later.
 *
 * <pre>java -cp 'target/lib/*' FencedClockStep.java PORT CLOCK_FILE STEP_MS</pre>
 */
public final class FencedClockStep {
    private static final long START = System.nanoTime();

    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: FencedClockStep PORT CLOCK_FILE STEP_MS");
            System.exit(2);
        }
        int port = Integer.parseInt(args[0]);
        long stepMs = Long.parseLong(args[2]);
        MappedByteBuffer clock = map(args[1]);
        checkShim(clock);

        RedissonClient a = client(port);
        RedissonClient b = client(port);
        String name = "repro:fenced:" + System.nanoTime();
        try {
            RFencedLock la = a.getFencedLock(name);
            RFencedLock lb = b.getFencedLock(name);
            Long ta = la.lockAndGetToken();
            log("a: lockAndGetToken() -> " + ta);
            CompletableFuture<Long> fb = lb.lockAndGetTokenAsync().toCompletableFuture();
            Thread.sleep(500);
            if (fb.isDone()) {
                log("RESULT error: b's lockAndGetToken() answered " + fb.join() + " before the step");
                System.exit(1);
            }
            log("b: lockAndGetToken() waiting; stepping the wall clock by " + stepMs + " ms");
            clock.putLong(0, stepMs * 1_000_000);
            long stepped = System.nanoTime();
            Long tb;
            try {
                tb = fb.get(10, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                log("RESULT waits: b still waiting 10 s after the step (a holds token " + ta + ")");
                la.unlock();
                log("a: unlock; b: lockAndGetToken() -> " + fb.get(10, TimeUnit.SECONDS));
                lb.unlock();
                return;
            }
            long after = (System.nanoTime() - stepped) / 1_000_000;
            boolean aHolds = la.isHeldByThread(Thread.currentThread().getId());
            log("b: lockAndGetToken() -> " + tb + ", " + after + " ms after the step; a holds the lock: " + aHolds
                    + "; the lock's hash: " + a.getMap(name, StringCodec.INSTANCE).readAllMap());
            log("b: getToken() -> " + lb.getToken() + " (the counter: a's token)");
            try {
                lb.unlock();
                log("b: unlock() -> ok");
            } catch (IllegalMonitorStateException e) {
                log("b: unlock() -> IllegalMonitorStateException (b never held it)");
            }
            if (aHolds) {
                log("RESULT broken: b's lockAndGetToken() returned " + tb + " while a held the lock (token " + ta + ")");
            } else {
                log("RESULT other: b's lockAndGetToken() returned " + tb + " and a no longer holds the lock");
            }
            la.unlock();
        } finally {
            clock.putLong(0, 0);
            a.shutdown();
            b.shutdown();
        }
    }

    /** A client like the driver's: single server, lockcheck's watchdog. */
    private static RedissonClient client(int port) {
        Config c = new Config();
        c.setLockWatchdogTimeout(1500);
        c.useSingleServer().setAddress("redis://127.0.0.1:" + port)
                .setConnectionMinimumIdleSize(1).setConnectionPoolSize(2)
                .setSubscriptionConnectionMinimumIdleSize(1).setSubscriptionConnectionPoolSize(2);
        return Redisson.create(c);
    }

    /** The shim's offset: a signed count of nanoseconds at byte 0. */
    private static MappedByteBuffer map(String path) throws Exception {
        try (RandomAccessFile f = new RandomAccessFile(path, "rw")) {
            if (f.length() < 8) {
                f.setLength(8);
            }
            MappedByteBuffer m = f.getChannel().map(FileChannel.MapMode.READ_WRITE, 0, 8);
            m.order(ByteOrder.nativeOrder());
            return m;
        }
    }

    /** Exits 2 unless an offset moves System.currentTimeMillis(). */
    private static void checkShim(MappedByteBuffer clock) {
        long before = System.currentTimeMillis();
        clock.putLong(0, 3_600_000_000_000L);
        long moved = System.currentTimeMillis() - before;
        clock.putLong(0, 0);
        if (moved < 3_599_000 || moved > 3_601_000) {
            System.err.println("FencedClockStep: the clock shim is not loaded (an hour's offset moved currentTimeMillis by "
                    + moved + " ms): run it with LD_PRELOAD and LOCKCHECK_CLOCK_FILE, as fenced-clock-step.sh does");
            System.exit(2);
        }
    }

    private static void log(String msg) {
        System.out.printf("%7.3f s  %s%n", (System.nanoTime() - START) / 1e9, msg);
    }
}
