import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Redisson's RLock, library alone: do the threads of one client miss their
 * wake-up? Two RedissonClients (the driver's single-server Config,
 * lockWatchdogTimeout 1500 ms), THREADS threads each (default 8), loop for
 * SECONDS: pick one of LOCKS lock names (seeded), lock(), hold 0-1 ms,
 * unlock(). Threads of one client share the client's RedissonLockEntry and
 * the PublishSubscribe stripe's AsyncSemaphore(1) per lock; before 4.6.1
 * that semaphore can leave a subscribe task queued beside a free permit
 * (AsyncSemaphoreRace.java), and the thread whose lock() waits for that
 * subscription is then not listening for the unlock message.
 *
 * <p>Each lock() call's wait is recorded, and every hold, per lock, as the
 * interval from lock()'s return to unlock()'s return, in one log shared by
 * both clients (one JVM). A call that waited longer than 500 ms (with holds
 * of ~1 ms and 2 x THREADS threads a wait is tens of ms) is printed with
 * how long the lock was free during its wait (no hold overlapping) and its
 * longest free stretch (calls over 100 ms are counted the same way). A
 * probe thread samples each client's 50 pub/sub AsyncSemaphore stripes
 * every ~1 ms for a task queued beside a free permit (StripeProbe). Ends
 * with a RESULT line. The calls asked in the
 * first 2 s (connections, scripts, JIT) are left out; SECONDS counts after
 * them.
 *
 * <pre>java -cp 'target/lib/*' ThreadsLostWakeup.java PORT SECONDS [LOCKS] [SEED] [THREADS]</pre>
 */
public final class ThreadsLostWakeup {
    private static final long SLOW_NS = 500_000_000L;
    /** Calls asked in the first WARMUP_NS (connections, scripts, JIT) are left out of the counts. */
    private static final long WARMUP_NS = 2_000_000_000L;

    /** Holds of one lock: [lock() returned, unlock() returned], nanoTime. */
    private static final class HoldLog {
        long[] start = new long[1 << 16];
        long[] end = new long[1 << 16];
        int n;

        synchronized void add(long s, long e) {
            if (n == start.length) {
                start = Arrays.copyOf(start, n * 2);
                end = Arrays.copyOf(end, n * 2);
            }
            start[n] = s;
            end[n] = e;
            n++;
        }
    }

    /** One lock() call. */
    private record Call(int client, int thread, int lock, long asked, long answered, String error) {
        long waitNs() {
            return answered - asked;
        }
    }

    private static volatile boolean stop;

    /**
     * Samples, every ~1 ms, the 50 AsyncSemaphore stripes of each client's
     * PublishSubscribeService (reflection: Redisson.connectionManager,
     * getSubscribeService(), its field locks): a stripe with a free permit
     * (getCounter() > 0) and a task queued (queueSize() > 0) whose queue head
     * is the same object in two samples or more is a stranded task, the
     * state AsyncSemaphoreRace.java counts. acquire() passes through that
     * state for an instant (its add comes before its decrement), longer if
     * its thread is descheduled there: the fixed releases are the baseline.
     */
    private static final class StripeProbe extends Thread {
        private final Object[][] sems;
        private final java.lang.reflect.Method counter;
        private final java.lang.reflect.Method size;
        private final java.lang.reflect.Field queue;
        private final Object[][] head;
        private final long[][] since;
        final List<String> episodes = new ArrayList<>();
        long count;
        long maxNs;
        long over10ms;
        long samples;

        StripeProbe(RedissonClient[] clients) throws Exception {
            super("stripe-probe");
            setDaemon(true);
            sems = new Object[clients.length][];
            Class<?> semClass = null;
            for (int c = 0; c < clients.length; c++) {
                java.lang.reflect.Field cm = Redisson.class.getDeclaredField("connectionManager");
                cm.setAccessible(true);
                Object manager = cm.get(clients[c]);
                Object service = manager.getClass().getMethod("getSubscribeService").invoke(manager);
                java.lang.reflect.Field locks = service.getClass().getDeclaredField("locks");
                locks.setAccessible(true);
                sems[c] = (Object[]) locks.get(service);
                semClass = sems[c][0].getClass();
            }
            counter = semClass.getMethod("getCounter");
            size = semClass.getMethod("queueSize");
            queue = semClass.getDeclaredField("listeners");
            queue.setAccessible(true);
            head = new Object[clients.length][sems[0].length];
            since = new long[clients.length][sems[0].length];
        }

        private Object first(Object sem) throws Exception {
            java.util.Iterator<?> it = ((Iterable<?>) queue.get(sem)).iterator();
            return it.hasNext() ? it.next() : null;
        }

        @Override
        public void run() {
            try {
                while (!stop) {
                    long now = System.nanoTime();
                    samples++;
                    for (int c = 0; c < sems.length; c++) {
                        for (int i = 0; i < sems[c].length; i++) {
                            Object sem = sems[c][i];
                            Object h = null;
                            if ((int) counter.invoke(sem) > 0 && (int) size.invoke(sem) > 0) {
                                h = first(sem);
                                if (h != null && (int) counter.invoke(sem) <= 0) {
                                    h = null;
                                }
                            }
                            if (h != null && h == head[c][i]) {
                                continue; // still stranded
                            }
                            end(c, i, now);
                            head[c][i] = h;
                            since[c][i] = now;
                        }
                    }
                    LockSupport.parkNanos(1_000_000);
                }
                long now = System.nanoTime();
                for (int c = 0; c < sems.length; c++) {
                    for (int i = 0; i < sems[c].length; i++) {
                        end(c, i, now);
                    }
                }
            } catch (Exception e) {
                System.out.println("stripe probe: " + e);
            }
        }

        /** Closes the episode of stripe i of client c, if its head was seen in two samples or more. */
        private void end(int c, int i, long now) {
            if (head[c][i] == null) {
                return;
            }
            long d = now - since[c][i];
            if (d < 500_000) {
                return; // seen in one sample only
            }
            count++;
            maxNs = Math.max(maxNs, d);
            if (d >= 10_000_000) {
                over10ms++;
                if (episodes.size() < 10) {
                    episodes.add(String.format("client %d stripe %d: a task queued beside a free permit for %.1f ms", c, i, d / 1e6));
                }
            }
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: ThreadsLostWakeup PORT SECONDS [LOCKS] [SEED] [THREADS]");
            System.exit(2);
        }
        String port = args[0];
        long seconds = Long.parseLong(args[1]);
        int locks = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        long seed = args.length > 3 ? Long.parseLong(args[3]) : 1;
        int threads = args.length > 4 ? Integer.parseInt(args[4]) : 8;
        Config cfg = new Config();
        cfg.setLockWatchdogTimeout(1500);
        cfg.useSingleServer().setAddress("redis://127.0.0.1:" + port);
        RedissonClient[] clients = {Redisson.create(cfg), Redisson.create(cfg)};
        String prefix = "threads-lost-wakeup-" + System.nanoTime() + "-";
        HoldLog[] holds = new HoldLog[locks];
        for (int i = 0; i < locks; i++) {
            holds[i] = new HoldLog();
        }
        List<List<Call>> calls = new ArrayList<>();
        List<Thread> workers = new ArrayList<>();
        AtomicLong errors = new AtomicLong();
        long t0 = System.nanoTime();
        for (int c = 0; c < clients.length; c++) {
            for (int t = 0; t < threads; t++) {
                List<Call> mine = new ArrayList<>();
                calls.add(mine);
                int ci = c;
                int ti = t;
                RedissonClient client = clients[c];
                Random rng = new Random(seed * 1000 + c * 100 + t);
                Thread th = new Thread(() -> {
                    RLock[] rl = new RLock[locks];
                    for (int i = 0; i < locks; i++) {
                        rl[i] = client.getLock(prefix + i);
                    }
                    while (!stop) {
                        int li = rng.nextInt(locks);
                        long hold = (long) (rng.nextDouble() * 1_000_000);
                        long asked = System.nanoTime();
                        try {
                            rl[li].lock();
                        } catch (RuntimeException e) {
                            if (errors.incrementAndGet() <= 3) {
                                System.out.println(Thread.currentThread().getName() + ": lock() threw " + e);
                            }
                            mine.add(new Call(ci, ti, li, asked, System.nanoTime(), e.toString()));
                            continue;
                        }
                        long got = System.nanoTime();
                        mine.add(new Call(ci, ti, li, asked, got, null));
                        LockSupport.parkNanos(hold);
                        try {
                            rl[li].unlock();
                        } catch (RuntimeException e) {
                            errors.incrementAndGet();
                            System.out.println("unlock threw: " + e);
                        }
                        holds[li].add(got, System.nanoTime());
                    }
                }, "c" + c + "-t" + t);
                th.setDaemon(true);
                workers.add(th);
            }
        }
        StripeProbe probe = null;
        try {
            probe = new StripeProbe(clients);
            probe.start();
        } catch (Exception e) {
            System.out.println("no stripe probe: " + e);
        }
        workers.forEach(Thread::start);
        Thread.sleep(WARMUP_NS / 1_000_000 + seconds * 1000);
        stop = true;
        long stopped = System.nanoTime();
        List<String> stuck = new ArrayList<>();
        for (Thread th : workers) {
            th.join(10_000);
            if (th.isAlive()) {
                stuck.add(th.getName());
            }
        }
        if (probe != null) {
            probe.join(2_000);
        }
        String version = Redisson.class.getPackage().getImplementationVersion();
        // Analysis: each call that waited longer than SLOW_NS.
        long total = 0;
        long over100 = 0;
        long over100Free = 0;
        long slow = 0;
        long slowFree = 0;
        long maxWait = 0;
        long[] waits;
        List<Call> all = new ArrayList<>();
        long warmupCalls = 0;
        long threw = 0;
        for (List<Call> l : calls) {
            for (Call c : l) {
                if (c.asked - t0 < WARMUP_NS) {
                    warmupCalls++;
                } else {
                    all.add(c);
                    if (c.error != null) {
                        threw++;
                    }
                }
            }
        }
        total = all.size();
        waits = new long[all.size()];
        for (int i = 0; i < all.size(); i++) {
            waits[i] = all.get(i).waitNs();
        }
        Arrays.sort(waits);
        for (HoldLog h : holds) {
            // Holds are disjoint in time (the lock is exclusive); sort by start.
            Integer[] idx = new Integer[h.n];
            for (int i = 0; i < h.n; i++) {
                idx[i] = i;
            }
            Arrays.sort(idx, (a, b) -> Long.compare(h.start[a], h.start[b]));
            long[] s = new long[h.n];
            long[] e = new long[h.n];
            for (int i = 0; i < h.n; i++) {
                s[i] = h.start[idx[i]];
                e[i] = h.end[idx[i]];
            }
            h.start = s;
            h.end = e;
        }
        all.sort((a, b) -> Long.compare(a.asked, b.asked));
        for (Call c : all) {
            long w = c.waitNs();
            maxWait = Math.max(maxWait, w);
            if (w > 100_000_000L) {
                over100++;
            }
            if (w <= 100_000_000L) {
                continue;
            }
            HoldLog h = holds[c.lock];
            // Free time within [asked, answered]: the wait minus the holds in it.
            long held = 0;
            long longestFree = 0;
            long cursor = c.asked;
            int grants = 0;
            int i = lowerBound(h.end, h.n, c.asked);
            for (; i < h.n && h.start[i] < c.answered; i++) {
                long s = Math.max(h.start[i], c.asked);
                long e = Math.min(h.end[i], c.answered);
                if (e > s) {
                    held += e - s;
                }
                if (s > cursor) {
                    longestFree = Math.max(longestFree, s - cursor);
                }
                cursor = Math.max(cursor, e);
                if (h.start[i] > c.asked && h.start[i] < c.answered - 1) {
                    grants++;
                }
            }
            if (c.answered > cursor) {
                longestFree = Math.max(longestFree, c.answered - cursor);
            }
            long free = w - held;
            boolean mostlyFree = free * 2 > w;
            if (mostlyFree) {
                over100Free++;
            }
            if (w <= SLOW_NS) {
                continue;
            }
            slow++;
            if (mostlyFree) {
                slowFree++;
            }
            System.out.printf("slow: client %d thread %d lock %d asked at %.3f s, %s after %d ms; lock free %d ms of it (%s), longest free stretch %d ms, %d other grants meanwhile%n",
                    c.client, c.thread, c.lock, (c.asked - t0) / 1e9, c.error == null ? "granted" : "threw " + c.error,
                    w / 1_000_000, free / 1_000_000, mostlyFree ? "mostly free" : "mostly held", longestFree / 1_000_000, grants);
        }
        if (!stuck.isEmpty()) {
            System.out.println("threads still in lock() 10 s after the stop: " + stuck);
        }
        long p50 = waits.length > 0 ? waits[waits.length / 2] : 0;
        long p99 = waits.length > 0 ? waits[(int) (waits.length * 0.99)] : 0;
        System.out.printf("left out: %d calls asked in the first %d ms (warm-up)%n", warmupCalls, WARMUP_NS / 1_000_000);
        System.out.printf("waits: p50 %.2f ms, p99 %.2f ms, max %d ms; %d calls > 100 ms, %d of them on a mostly free lock; %d lock() calls threw%n",
                p50 / 1e6, p99 / 1e6, maxWait / 1_000_000, over100, over100Free, threw);
        if (probe != null) {
            probe.episodes.forEach(e -> System.out.println("stranded: " + e));
            System.out.printf("stripe probe: %d samples; %d times a subscribe/unsubscribe task sat queued beside a free permit in two samples or more, %d of them >= 10 ms, longest %.1f ms%n",
                    probe.samples, probe.count, probe.over10ms, probe.maxNs / 1e6);
        }
        System.out.printf("RESULT Redisson %s: %d lock() calls (%d locks, 2 clients x %d threads, %d s), %d waited > 500 ms, %d of them on a mostly free lock, max wait %d ms%s%n",
                version, total, locks, threads, seconds, slow, slowFree, maxWait / 1_000_000,
                stuck.isEmpty() ? "" : ", " + stuck.size() + " threads stuck at the end");
        for (RedissonClient c : clients) {
            c.shutdown();
        }
        System.exit(0);
    }

    /** The first index whose end is >= t (ends are increasing as the holds are disjoint). */
    private static int lowerBound(long[] end, int n, long t) {
        int lo = 0;
        int hi = n;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (end[mid] < t) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}
