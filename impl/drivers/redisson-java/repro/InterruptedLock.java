import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisException;
import org.redisson.config.Config;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
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
 * <p>DELAY_MS, when above 0, puts a proxy of this program between the client
 * and Redis that passes every reply on DELAY_MS late, and the interrupt
 * comes INTERRUPT_US into the call (default: DELAY_MS/2): Redis has run the
 * acquire command, and its reply reaches the client after the interrupt,
 * or, with INTERRUPT_US near DELAY_MS, while the interrupted thread is
 * handling it: orderings that plain loopback timing makes rare.
 *
 * <pre>java -cp 'target/lib/*' InterruptedLock.java PORT [TRIALS] [lock|fair|spin|fenced|read|write] [DELAY_MS [INTERRUPT_US]]</pre>
 */
public final class InterruptedLock {
    private static final long WATCHDOG_MS = 1500;

    public static void main(String[] args) throws Exception {
        if (args.length < 1 || args.length > 5 || (args.length >= 3 && !args[2].matches("lock|fair|spin|fenced|read|write"))
                || (args.length >= 4 && !args[3].matches("[0-9]+")) || (args.length == 5 && !args[4].matches("[0-9]+"))) {
            System.err.println("usage: InterruptedLock PORT [TRIALS] [lock|fair|spin|fenced|read|write] [DELAY_MS [INTERRUPT_US]]");
            System.exit(2);
        }
        int trials = args.length >= 2 ? Integer.parseInt(args[1]) : 200;
        kind = args.length >= 3 ? args[2] : "lock";
        int port = Integer.parseInt(args[0]);
        if (args.length >= 4 && Integer.parseInt(args[3]) > 0) {
            delayMs = Integer.parseInt(args[3]);
            interruptUs = args.length == 5 ? Integer.parseInt(args[4]) : delayMs * 500;
            port = DelayProxy.start(port, delayMs);
        }
        Config cfg = new Config();
        cfg.setLockWatchdogTimeout(WATCHDOG_MS);
        cfg.useSingleServer().setAddress("redis://127.0.0.1:" + port);
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

    /** The lock kind: an RLock, a fair, spin or fenced lock, or a read-write lock's read or write lock. */
    private static String kind = "lock";

    /** How late the proxy passes replies on (0: no proxy), and when the interrupt comes (µs into the call). */
    private static int delayMs, interruptUs;

    private static RLock lockOf(RedissonClient r, String name) throws ReflectiveOperationException {
        return switch (kind) {
            case "read" -> r.getReadWriteLock(name).readLock();
            case "write" -> r.getReadWriteLock(name).writeLock();
            case "fair" -> r.getFairLock(name);
            case "spin" -> r.getSpinLock(name);
            // By reflection: RFencedLock came with 3.25.0, and this file
            // must compile against the releases before it too.
            case "fenced" -> (RLock) RedissonClient.class.getMethod("getFencedLock", String.class).invoke(r, name);
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
        System.out.printf("RESULT %s%s %s: %d returned, %d InterruptedException, %d RedisException; of the last, %d locks still held at 4.5 s and %d at 9 s%n",
                kind, delayMs > 0 ? " (replies " + delayMs + " ms late, interrupt at " + interruptUs + " µs)" : "", label, outcomes[0], outcomes[1], outcomes[2], at45, at9);
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
        long until = System.nanoTime() + (delayMs > 0 ? interruptUs * 1_000L : ThreadLocalRandom.current().nextLong(300_000));
        while (System.nanoTime() < until) {
            Thread.onSpinWait();
        }
        t.interrupt();
        t.join();
        return outcome[0];
    }

    /**
     * A TCP proxy on a free loopback port in front of Redis at port: requests
     * go on at once, every reply DELAY_MS late (a thread per direction and
     * connection; daemon threads, gone with the program).
     */
    static final class DelayProxy {
        static int start(int port, int delayMs) throws IOException {
            ServerSocket ss = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            Thread accept = new Thread(() -> {
                while (true) {
                    try {
                        Socket client = ss.accept();
                        Socket server = new Socket(InetAddress.getLoopbackAddress(), port);
                        client.setTcpNoDelay(true);
                        server.setTcpNoDelay(true);
                        pump(client.getInputStream(), server.getOutputStream(), 0);
                        pump(server.getInputStream(), client.getOutputStream(), delayMs);
                    } catch (IOException e) {
                        return;
                    }
                }
            });
            accept.setDaemon(true);
            accept.start();
            return ss.getLocalPort();
        }

        private static void pump(InputStream in, OutputStream out, int delayMs) {
            Thread t = new Thread(() -> {
                byte[] buf = new byte[16384];
                try {
                    for (int n; (n = in.read(buf)) >= 0; ) {
                        if (delayMs > 0) {
                            Thread.sleep(delayMs);
                        }
                        out.write(buf, 0, n);
                        out.flush();
                    }
                } catch (IOException | InterruptedException e) {
                    // the connection closed
                }
            });
            t.setDaemon(true);
            t.start();
        }
    }
}
