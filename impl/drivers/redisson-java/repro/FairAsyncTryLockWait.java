import java.io.BufferedInputStream;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Redisson's fair lock (RedissonClient.getFairLock), library alone: do waiters
 * sleep beside a FREE lock after tryLockAsync calls failed in the queue ahead
 * of them? One fair lock per trial, fresh name:
 *
 * <pre>
 *   a    lock()                         (client a, the main thread) holds it
 *   W1   lock()                         (client w, a thread of its own) queued 1st
 *   T1.. tryLockAsync(TRY_WAIT, -1, ms)  (client t, a thread each) queued 2nd..K+1st
 *   W2   lock()                         (client w) queued after the tries
 *   W3   lock()                         (client w) queued last
 *   ...  the tries run out and answer false (still queued when they fail)
 *   a    unlock()                       at U
 *   each W holds 100 ms when granted, then unlocks
 * </pre>
 *
 * Each call starts only when the previous one shows in redisson_lock_queue,
 * so the queue order is fixed. MODE sync, the control, calls tryLock(TRY_WAIT,
 * -1, ms) (blocking, in its thread) instead of tryLockAsync. Three sockets of
 * their own (no Redisson): one sends EXISTS on the lock's key every ~2 ms (the
 * lock is free when it answers 0), one prints LRANGE redisson_lock_queue and
 * ZRANGE redisson_lock_timeout WITHSCORES (scores shown as ms from now), and
 * a MONITOR reads the commands each acquireFailed script runs (the only one
 * with an LREM): the ZINCRBY it applies to the deadlines of everyone queued
 * after the failing caller (EVAL or EVALSHA alike).
 *
 * <p>For each waiter: when it was granted after U, and how many ms of
 * [U, grant] the lock was free (key absent). A waiter not granted WINDOW ms
 * after U is left asleep (daemon thread; the JVM exits at the end) and
 * counted up to the window. A trial "waits on a free lock" when a waiter
 * spent FREE_MS (250) or more of its wait beside a free lock. Prints a
 * RESULT line per trial and one for the run.
 *
 * <pre>java -cp 'target/lib/*' FairAsyncTryLockWait.java PORT TRIALS [async|sync] [K] [WATCHDOG_MS] [WINDOW_MS] [TRY_WAIT_MS]</pre>
 * defaults: async, K=2 tries, lockWatchdogTimeout 4000 ms (a's lease, and so
 * the pttl the waiters read), WINDOW 7000 ms, TRY_WAIT 500 ms.
 */
@SuppressWarnings("deprecation") // Thread.getId: the owner id Redisson itself uses
public final class FairAsyncTryLockWait {
    private static final long HOLD_MS = 100;
    private static final long FREE_MS = 250;

    private static int port;

    // ---- a minimal RESP client (no Redisson), for the observers ----

    private static final class Resp implements AutoCloseable {
        private final Socket s;
        private final OutputStream out;
        private final InputStream in;

        Resp() throws IOException {
            s = new Socket("127.0.0.1", port);
            s.setTcpNoDelay(true);
            out = s.getOutputStream();
            in = new BufferedInputStream(s.getInputStream());
        }

        synchronized Object call(String... args) throws IOException {
            StringBuilder b = new StringBuilder("*").append(args.length).append("\r\n");
            for (String a : args) {
                byte[] bytes = a.getBytes(StandardCharsets.UTF_8);
                b.append('$').append(bytes.length).append("\r\n").append(a).append("\r\n");
            }
            out.write(b.toString().getBytes(StandardCharsets.UTF_8));
            out.flush();
            return read();
        }

        private String line() throws IOException {
            StringBuilder b = new StringBuilder();
            int c;
            while ((c = in.read()) != '\r') {
                if (c < 0) {
                    throw new IOException("closed");
                }
                b.append((char) c);
            }
            in.read(); // \n
            return b.toString();
        }

        private Object read() throws IOException {
            String l = line();
            switch (l.charAt(0)) {
            case '+':
                return l.substring(1);
            case '-':
                throw new IOException("redis: " + l.substring(1));
            case ':':
                return Long.parseLong(l.substring(1));
            case '$': {
                int n = Integer.parseInt(l.substring(1));
                if (n < 0) {
                    return null;
                }
                byte[] buf = in.readNBytes(n + 2);
                return new String(buf, 0, n, StandardCharsets.UTF_8);
            }
            case '*': {
                int n = Integer.parseInt(l.substring(1));
                List<Object> r = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    r.add(read());
                }
                return r;
            }
            default:
                throw new IOException("bad reply " + l);
            }
        }

        public void close() throws IOException {
            s.close();
        }
    }

    /** One lock() waiter. */
    private static final class Waiter {
        final String label;
        volatile long threadId;
        volatile long granted = -1; // nanoTime
        volatile long released = -1;
        volatile Throwable failed;

        Waiter(String label) {
            this.label = label;
        }
    }

    /** One tryLock caller. */
    private static final class Try {
        final String label;
        volatile long threadId;
        volatile long called = -1;
        volatile long answered = -1;
        volatile Boolean result;
        volatile Throwable failed;

        Try(String label) {
            this.label = label;
        }
    }

    private static long t0;

    private static long ms(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos - t0);
    }

    private static void log(String fmt, Object... args) {
        System.out.printf("%6d ms  %s%n", ms(System.nanoTime()), String.format(fmt, args));
    }

    private static String owner(String entry, RedissonClient w, RedissonClient t, List<Waiter> ws, List<Try> ts) {
        for (Waiter x : ws) {
            if (entry.endsWith(":" + x.threadId) && entry.startsWith(w.getId())) {
                return x.label;
            }
        }
        for (Try x : ts) {
            if (entry.endsWith(":" + x.threadId) && entry.startsWith(t.getId())) {
                return x.label;
            }
        }
        return entry;
    }

    @SuppressWarnings("unchecked")
    private static void dump(String when, Resp r, String queue, String timeouts, RedissonClient w, RedissonClient t,
            List<Waiter> ws, List<Try> ts) throws IOException {
        List<Object> q = (List<Object>) r.call("LRANGE", queue, "0", "-1");
        List<Object> z = (List<Object>) r.call("ZRANGE", timeouts, "0", "-1", "WITHSCORES");
        long now = System.currentTimeMillis();
        StringBuilder qs = new StringBuilder();
        for (Object e : q) {
            qs.append(qs.length() == 0 ? "" : ", ").append(owner((String) e, w, t, ws, ts));
        }
        StringBuilder zs = new StringBuilder();
        for (int i = 0; i + 1 < z.size(); i += 2) {
            long d = (long) Double.parseDouble((String) z.get(i + 1)) - now;
            zs.append(zs.length() == 0 ? "" : ", ").append(owner((String) z.get(i), w, t, ws, ts)).append(' ')
                    .append(d >= 0 ? "+" : "").append(d);
        }
        log("%s: queue [%s]  deadlines (ms from now) [%s]", when, qs, zs);
    }

    @SuppressWarnings("unchecked")
    private static long llen(Resp r, String queue) throws IOException {
        return (Long) r.call("LLEN", queue);
    }

    private static void waitLen(Resp r, String queue, long n) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (llen(r, queue) < n) {
            if (System.nanoTime() > end) {
                throw new IllegalStateException("queue did not reach " + n);
            }
            Thread.sleep(1);
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 2 || args.length > 7) {
            System.err.println("usage: FairAsyncTryLockWait PORT TRIALS [async|sync] [K] [WATCHDOG_MS] [WINDOW_MS] [TRY_WAIT_MS]");
            System.exit(2);
        }
        port = Integer.parseInt(args[0]);
        int trials = Integer.parseInt(args[1]);
        String mode = args.length > 2 ? args[2] : "async";
        if (!mode.equals("async") && !mode.equals("sync")) {
            System.err.println("FairAsyncTryLockWait: MODE is async or sync, not " + mode);
            System.exit(2);
        }
        int k = args.length > 3 ? Integer.parseInt(args[3]) : 2;
        long watchdog = args.length > 4 ? Long.parseLong(args[4]) : 4000;
        long window = args.length > 5 ? Long.parseLong(args[5]) : 7000;
        long tryWait = args.length > 6 ? Long.parseLong(args[6]) : 500;
        String version = Redisson.class.getPackage().getImplementationVersion();

        Config cfg = new Config();
        cfg.setLockWatchdogTimeout(watchdog);
        cfg.useSingleServer().setAddress("redis://127.0.0.1:" + port);
        RedissonClient a = Redisson.create(cfg);
        RedissonClient w = Redisson.create(cfg);
        RedissonClient t = Redisson.create(cfg);
        Resp obs = new Resp();
        Resp sampler = new Resp();

        // MONITOR: the commands a script runs show as [db lua] lines. Only
        // acquireFailed's script runs LREM; the ZINCRBYs just before it in the
        // same script are its cuts of the deadlines queued after the caller.
        List<String> failedArgs = new CopyOnWriteArrayList<>();
        Socket mon = new Socket("127.0.0.1", port);
        mon.getOutputStream().write("*1\r\n$7\r\nMONITOR\r\n".getBytes(StandardCharsets.UTF_8));
        BufferedReader monIn = new BufferedReader(new InputStreamReader(mon.getInputStream(), StandardCharsets.UTF_8));
        monIn.readLine();
        java.util.regex.Pattern tok = java.util.regex.Pattern.compile("\"((?:[^\"\\\\]|\\\\.)*)\"");
        Thread monT = new Thread(() -> {
            try {
                String l;
                String cut = null;
                while ((l = monIn.readLine()) != null) {
                    if (!l.contains(" lua] ")) {
                        cut = null; // a new script (or command) begins
                        continue;
                    }
                    java.util.regex.Matcher m = tok.matcher(l);
                    List<String> tk = new ArrayList<>();
                    while (m.find()) {
                        tk.add(m.group(1));
                    }
                    if (tk.size() >= 3 && tk.get(0).equalsIgnoreCase("zincrby")) {
                        cut = tk.get(2);
                    } else if (tk.size() >= 4 && tk.get(0).equalsIgnoreCase("lrem")) {
                        // "lrem" QUEUE "0" "client:thread"
                        failedArgs.add(tk.get(3) + " " + (cut == null ? "none(nobody-after)" : cut) + " " + tk.get(1));
                    }
                }
            } catch (IOException e) {
                // closed at exit
            }
        }, "monitor");
        monT.setDaemon(true);
        monT.start();

        int broken = 0;
        long maxFree = 0;
        int stranded = 0;
        List<Long> freeWaits = new ArrayList<>();
        System.out.printf("Redisson %s, mode %s (%s), K=%d tries with wait %d ms, lockWatchdogTimeout %d ms, window %d ms%n",
                version, mode, mode.equals("async") ? "tryLockAsync(wait, -1, ms)" : "tryLock(wait, -1, ms)", k, tryWait,
                watchdog, window);
        for (int trial = 1; trial <= trials; trial++) {
            String name = "fair-async-trylock-" + mode + "-" + trial + "-" + System.nanoTime();
            String queue = "redisson_lock_queue:{" + name + "}";
            String timeouts = "redisson_lock_timeout:{" + name + "}";
            t0 = System.nanoTime();
            System.out.printf("--- trial %d (lock %s)%n", trial, name);
            RLock la = a.getFairLock(name);
            la.lock();
            log("a: lock() granted");

            List<Waiter> ws = new ArrayList<>();
            List<Try> ts = new ArrayList<>();
            List<String> order = new ArrayList<>();
            order.add("W1");
            for (int i = 1; i <= k; i++) {
                order.add("T" + i);
            }
            order.add("W2");
            order.add("W3");
            int len = 0;
            for (String who : order) {
                if (who.startsWith("W")) {
                    Waiter x = new Waiter(who);
                    ws.add(x);
                    Thread th = new Thread(() -> {
                        x.threadId = Thread.currentThread().getId();
                        RLock l = w.getFairLock(name);
                        try {
                            l.lock();
                            x.granted = System.nanoTime();
                            Thread.sleep(HOLD_MS);
                            l.unlock();
                            x.released = System.nanoTime();
                        } catch (Throwable e) {
                            x.failed = e;
                        }
                    }, who);
                    th.setDaemon(true);
                    th.start();
                } else {
                    Try x = new Try(who);
                    ts.add(x);
                    Thread th = new Thread(() -> {
                        x.threadId = Thread.currentThread().getId();
                        RLock l = t.getFairLock(name);
                        x.called = System.nanoTime();
                        try {
                            if (mode.equals("async")) {
                                CompletableFuture<Boolean> f = l.tryLockAsync(tryWait, -1, TimeUnit.MILLISECONDS)
                                        .toCompletableFuture();
                                x.result = f.get();
                            } else {
                                x.result = l.tryLock(tryWait, -1, TimeUnit.MILLISECONDS);
                            }
                            x.answered = System.nanoTime();
                        } catch (Throwable e) {
                            x.failed = e;
                            x.answered = System.nanoTime();
                        }
                    }, who);
                    th.setDaemon(true);
                    th.start();
                }
                len++;
                waitLen(obs, queue, len);
            }
            log("queued in order %s", order);
            dump("all queued", obs, queue, timeouts, w, t, ws, ts);
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (ts.stream().anyMatch(x -> x.answered < 0) && System.nanoTime() < end) {
                Thread.sleep(2);
            }
            for (Try x : ts) {
                log("%s: %s answered %s at %d ms (called at %d ms)%s", x.label,
                        mode.equals("async") ? "tryLockAsync" : "tryLock", x.result, ms(x.answered), ms(x.called),
                        x.failed != null ? " threw " + x.failed : "");
            }
            Thread.sleep(20); // the monitor's lines
            for (String f : failedArgs) {
                if (f.contains(name)) {
                    String[] p = f.split(" ", 3);
                    log("acquireFailed script of %s: ZINCRBY %s on the deadlines queued after it", owner(p[0], w, t, ws, ts), p[1]);
                }
            }
            dump("tries failed", obs, queue, timeouts, w, t, ws, ts);

            // Sample EXISTS from here on.
            List<long[]> samples = new ArrayList<>();
            AtomicLong stop = new AtomicLong();
            Thread st = new Thread(() -> {
                try {
                    while (stop.get() == 0) {
                        long v = (Long) sampler.call("EXISTS", name);
                        synchronized (samples) {
                            samples.add(new long[] {System.nanoTime(), v});
                        }
                        Thread.sleep(2);
                    }
                } catch (Exception e) {
                    System.out.println("sampler: " + e);
                }
            }, "sampler");
            st.setDaemon(true);
            st.start();
            Thread.sleep(5);
            long u = System.nanoTime();
            la.unlock();
            log("a: unlock() (U)");
            long wend = u + TimeUnit.MILLISECONDS.toNanos(window);
            Waiter w1 = ws.get(0);
            while (w1.granted < 0 && w1.failed == null && System.nanoTime() < wend) {
                Thread.sleep(1);
            }
            dump("W1 granted", obs, queue, timeouts, w, t, ws, ts);
            boolean dumped = false;
            while (System.nanoTime() < wend && ws.stream().anyMatch(x -> x.released < 0 && x.failed == null)) {
                Thread.sleep(5);
                if (!dumped && System.nanoTime() - u > TimeUnit.MILLISECONDS.toNanos(600)) {
                    dump("U+600 ms", obs, queue, timeouts, w, t, ws, ts);
                    dumped = true;
                }
            }
            stop.set(1);
            st.join();
            dump("end", obs, queue, timeouts, w, t, ws, ts);
            long exists = (Long) obs.call("EXISTS", name);
            long[][] sm;
            synchronized (samples) {
                sm = samples.toArray(new long[0][]);
            }
            boolean trialBroken = false;
            long trialMax = 0;
            for (Waiter x : ws) {
                long stopAt = x.granted >= 0 ? x.granted : wend;
                long free = 0;
                for (int i = 0; i + 1 < sm.length; i++) {
                    long from = Math.max(sm[i][0], u);
                    long to = Math.min(sm[i + 1][0], stopAt);
                    if (sm[i][1] == 0 && to > from) {
                        free += to - from;
                    }
                }
                long freeMs = TimeUnit.NANOSECONDS.toMillis(free);
                if (x.granted >= 0) {
                    log("%s: granted at U+%d ms; the lock was free %d ms of that%s", x.label,
                            TimeUnit.NANOSECONDS.toMillis(x.granted - u), freeMs,
                            freeMs >= FREE_MS ? "  <-- waited on a free lock" : "");
                } else {
                    log("%s: NOT granted by U+%d ms (still in lock()%s); the lock was free %d ms of that%s", x.label,
                            window, x.failed != null ? ", threw " + x.failed : "", freeMs,
                            freeMs >= FREE_MS ? "  <-- waited on a free lock" : "");
                    if (x.failed == null) {
                        stranded++;
                    }
                }
                if (freeMs >= FREE_MS) {
                    trialBroken = true;
                    freeWaits.add(freeMs);
                }
                trialMax = Math.max(trialMax, freeMs);
            }
            maxFree = Math.max(maxFree, trialMax);
            if (trialBroken) {
                broken++;
            }
            System.out.printf("RESULT trial %d: %s (longest wait beside the free lock %d ms; lock key exists at the end: %d)%n",
                    trial, trialBroken ? "waited-on-free-lock" : "ok", trialMax, exists);
        }
        System.out.printf("RESULT Redisson %s %s K=%d: %d of %d trials with a waiter on a free lock >= %d ms (waits %s ms; %d waiter(s) still asleep at U+%d ms)%n",
                version, mode, k, broken, trials, FREE_MS, freeWaits, stranded, window);
        System.out.flush();
        Runtime.getRuntime().halt(0); // waiters may still sleep in lock() for minutes
    }
}
