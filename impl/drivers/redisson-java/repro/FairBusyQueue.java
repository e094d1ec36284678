// FairBusyQueue reproduces, on Redisson's fair lock alone (no lockcheck, no
// driver protocol), the FIFO break that lockcheck's
// workloads/redisson_test.go TestRedissonFairBusyQueue finds: a queue kept
// busy longer than a lease leaves the waiters' deadlines anchored at its start,
// so a live tryLock waiter with a short wait is purged by a later caller, which
// is granted first.
//
// Five RedissonClient instances (five client ids), each driven by its own
// single thread (the owner's thread id), play the test's schedule on one lock:
//
//   t=0     h.lock(lease 1500)          granted
//   t=10    a.lock(lease 3000)          queued behind h
//   t=160   b.lock(lease 3000)          queued behind a
//   t=1000  h.unlock                    a granted
//   t=2200  try.tryLock(wait 400, lease 1500)   queued behind b, waits until 2600
//   t=2300  a.unlock                    b granted
//   t=2350  late.lock(lease 1500)       comes after try
//   t=2450  b.unlock                    FIFO: try (still within its wait) is next
//
// Broken (the test's criterion): late is granted, and try either fails or is
// granted after late. A sixth client reads the queue's deadlines
// (redisson_lock_timeout:{name}) at a few instants, relative to t=0.
//
// Run: java -cp 'impl/drivers/redisson-java/target/lib/*' FairBusyQueue.java <redis-port> [try-wait-ms]
// try-wait-ms (default 400, the test's) is try's wait; a control run with 2000
// (try's deadline then outlives the purge) keeps FIFO, so the check can fail.
// Prints the timeline and a last line "RESULT broken" or "RESULT fifo";
// exit status 0 either way, 2 on a bad argument, 1 on an unexpected error.

import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.client.protocol.ScoredEntry;
import org.redisson.config.Config;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

@SuppressWarnings("deprecation") // Thread.getId: the owner id Redisson itself uses
public class FairBusyQueue {
    static long t0Nanos;
    static long t0Epoch;
    static final Map<String, String> ownerNames = new ConcurrentHashMap<>();

    static long now() {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0Nanos);
    }

    static synchronized void log(String msg) {
        System.out.printf("%6d ms  %s%n", now(), msg);
    }

    static void at(long ms) throws InterruptedException {
        long d = ms - now();
        if (d > 0) {
            Thread.sleep(d);
        }
    }

    /** The driver's Config (Topology.java, single server), as hello builds it. */
    static RedissonClient client(int port, String name) {
        Config c = new Config();
        c.setLockWatchdogTimeout(30_000);
        c.setThreads(2);
        c.setNettyThreads(2);
        c.useSingleServer()
                .setAddress("redis://127.0.0.1:" + port)
                .setConnectionMinimumIdleSize(1)
                .setConnectionPoolSize(2)
                .setSubscriptionConnectionMinimumIdleSize(1)
                .setSubscriptionConnectionPoolSize(2)
                .setClientName("repro-" + name)
                .setConnectTimeout(5000)
                .setTimeout(1000)
                .setSubscriptionTimeout(1000)
                .setRetryAttempts(0)
                .setRetryInterval(1000);
        return Redisson.create(c);
    }

    /** One client: a RedissonClient and the one thread that owns its holds. */
    static final class Party {
        final String name;
        final RedissonClient redisson;
        final ExecutorService thread;
        final String lockName;

        Party(int port, String name, String lockName) throws Exception {
            this.name = name;
            this.lockName = lockName;
            this.redisson = client(port, name);
            this.thread = Executors.newSingleThreadExecutor(r -> new Thread(r, "party-" + name));
            // Record this owner's queue entry name ("<client id>:<thread id>").
            thread.submit(() -> ownerNames.put(redisson.getId() + ":" + Thread.currentThread().getId(), name)).get();
        }

        RLock lock() {
            return redisson.getFairLock(lockName);
        }

        <T> Future<T> run(Callable<T> c) {
            return thread.submit(c);
        }

        Future<Boolean> lock(long leaseMs) {
            log(name + ": lock(lease " + leaseMs + ") called");
            return run(() -> {
                lock().lock(leaseMs, TimeUnit.MILLISECONDS);
                log(name + ": lock granted");
                return true;
            });
        }

        Future<Boolean> tryLock(long waitMs, long leaseMs) {
            log(name + ": tryLock(wait " + waitMs + ", lease " + leaseMs + ") called");
            return run(() -> {
                boolean ok = lock().tryLock(waitMs, leaseMs, TimeUnit.MILLISECONDS);
                log(name + ": tryLock returned " + ok);
                return ok;
            });
        }

        void unlock() throws Exception {
            run(() -> {
                lock().unlock();
                log(name + ": unlocked");
                return null;
            }).get(3, TimeUnit.SECONDS);
        }

        void close() {
            thread.shutdownNow();
            redisson.shutdown(0, 2, TimeUnit.SECONDS);
        }
    }

    /** Logs the wait queue in order with each waiter's deadline relative to t=0. */
    static void snapshot(RedissonClient obs, String lockName, String when) {
        List<Object> queue = obs.getList("redisson_lock_queue:{" + lockName + "}", StringCodec.INSTANCE).readAll();
        Map<String, Double> deadline = new LinkedHashMap<>();
        for (ScoredEntry<Object> e : obs.getScoredSortedSet("redisson_lock_timeout:{" + lockName + "}", StringCodec.INSTANCE).entryRange(0, -1)) {
            deadline.put(String.valueOf(e.getValue()), e.getScore());
        }
        List<String> parts = new ArrayList<>();
        for (Object q : queue) {
            String id = String.valueOf(q);
            Double d = deadline.get(id);
            parts.add(ownerNames.getOrDefault(id, id) + " deadline "
                    + (d == null ? "none" : String.format("%+d ms", (long) (d - t0Epoch))));
        }
        log("queue " + when + ": " + (parts.isEmpty() ? "(empty)" : String.join(", ", parts)));
    }

    public static void main(String[] args) throws Exception {
        int port;
        long tryWait;
        try {
            port = Integer.parseInt(args.length >= 1 && args.length <= 2 ? args[0] : "");
            tryWait = args.length == 2 ? Long.parseLong(args[1]) : 400;
        } catch (NumberFormatException e) {
            System.err.println("usage: FairBusyQueue <redis-port> [try-wait-ms]");
            System.exit(2);
            return;
        }
        String lockName = "repro-fair-" + System.nanoTime();
        Map<String, Party> p = new LinkedHashMap<>();
        RedissonClient obs = client(port, "observer");
        try {
            for (String n : List.of("h", "a", "b", "try", "late")) {
                p.put(n, new Party(port, n, lockName));
            }
            System.out.println("Redisson fair lock " + lockName + ", fairLockWaitTimeout "
                    + obs.getConfig().getFairLockWaitTimeout() + " ms, owners " + ownerNames);
            // Epoch ms at t=0 (Redisson's scripts stamp deadlines with the client's wall clock).
            t0Epoch = System.currentTimeMillis();
            t0Nanos = System.nanoTime();
            p.get("h").lock(1500).get(3, TimeUnit.SECONDS);
            at(10);
            Future<Boolean> a = p.get("a").lock(3000);
            at(160);
            Future<Boolean> b = p.get("b").lock(3000);
            at(900);
            snapshot(obs, lockName, "before h.unlock");
            at(1000);
            p.get("h").unlock();
            a.get(3, TimeUnit.SECONDS);
            at(2200);
            Future<Boolean> tr = p.get("try").tryLock(tryWait, 1500);
            at(2250);
            snapshot(obs, lockName, "with try queued");
            at(2300);
            p.get("a").unlock();
            b.get(3, TimeUnit.SECONDS);
            snapshot(obs, lockName, "after b granted");
            at(2350);
            Future<Boolean> late = p.get("late").lock(1500);
            at(2400);
            snapshot(obs, lockName, "after late called");
            at(2450);
            p.get("b").unlock();

            // Result times: each party logs its grant; read the futures with bounds.
            Future<Long> trDone = p.get("try").run(() -> now()); // queued after try's call
            Future<Long> lateDone = p.get("late").run(() -> now());
            boolean trOk = tr.get(5, TimeUnit.SECONDS);
            long trT = trDone.get(5, TimeUnit.SECONDS);
            boolean lateOk = late.get(9, TimeUnit.SECONDS);
            long lateT = lateDone.get(5, TimeUnit.SECONDS);
            boolean broken = lateOk && (!trOk || lateT < trT);
            System.out.printf("try (queued at 2200 ms, wait until %d ms) %s at ~%d ms; late (called at 2350 ms) %s at ~%d ms%n",
                    2200 + tryWait, trOk ? "granted" : "FAILED", trT, lateOk ? "granted" : "failed", lateT);
            System.out.println(broken ? "RESULT broken" : "RESULT fifo");
        } catch (Exception e) {
            System.err.println("unexpected: " + e);
            e.printStackTrace();
            System.exit(1);
        } finally {
            for (Party x : p.values()) {
                x.close();
            }
            obs.shutdown(0, 2, TimeUnit.SECONDS);
        }
    }
}
