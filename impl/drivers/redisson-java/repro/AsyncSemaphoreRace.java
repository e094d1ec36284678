import java.lang.reflect.Method;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Redisson's AsyncSemaphore, the class alone (no Redis, no client): the
 * race of upstream's AsyncSemaphoreTest.testReleaseRacingAcquire (commit
 * 8370169a3, "Fixed - AsyncSemaphore race condition", in 4.6.1). Each
 * round makes a fresh AsyncSemaphore(0); the main thread calls acquire and
 * a second thread release, started together (the releaser spins on a
 * shared round number; then one of the two spins 0..SKEW iterations more,
 * a number that sweeps -SKEW..SKEW round by round so the two calls meet at
 * every offset). After both returned, the acquire's
 * task must have run (the release left a permit for it): a round in which
 * it did not is lost. Before the fix, tryRun() can poll an empty queue on
 * the releaser's side, while the acquirer's decrement finds the permit
 * taken, and each gives up: the task stays queued with a permit free.
 *
 * <p>Works on both APIs: org.redisson.pubsub.AsyncSemaphore (3.x up to
 * about 3.17: acquire(Runnable), release()) and
 * org.redisson.misc.AsyncSemaphore (later: CompletableFuture acquire(),
 * release()), chosen by which class the jars hold.
 *
 * <pre>java -cp 'target/lib/*' AsyncSemaphoreRace.java SECONDS [SKEW]</pre>
 */
public final class AsyncSemaphoreRace {
    private static Class<?> cls;
    private static boolean runnableApi;
    private static Method acquire;
    private static Method release;
    private static java.lang.reflect.Constructor<?> ctor;

    private static volatile Object sem;
    private static volatile long round;
    private static final AtomicInteger doneCount = new AtomicInteger();
    /** The acquire's task ran (Runnable API) or its future (future API). */
    private static volatile boolean stop;
    private static volatile int skew;

    private static void load() throws Exception {
        try {
            cls = Class.forName("org.redisson.misc.AsyncSemaphore");
        } catch (ClassNotFoundException e) {
            cls = Class.forName("org.redisson.pubsub.AsyncSemaphore");
        }
        try {
            acquire = cls.getMethod("acquire", Runnable.class);
            runnableApi = true;
        } catch (NoSuchMethodException e) {
            acquire = cls.getMethod("acquire");
            runnableApi = false;
        }
        release = cls.getMethod("release");
        ctor = cls.getConstructor(int.class);
    }

    private static void spin(int n) {
        for (int i = 0; i < n; i++) {
            Thread.onSpinWait();
        }
    }

    public static void main(String[] args) throws Exception {
        long seconds = args.length > 0 ? Long.parseLong(args[0]) : 20;
        int maxSkew = args.length > 1 ? Integer.parseInt(args[1]) : 32;
        load();
        // The main thread is the acquirer; the releaser is a second thread
        // spinning on the round number (two threads on a 2-core machine).
        Thread releaser = new Thread(() -> {
            long seen = 0;
            try {
                while (true) {
                    while (round == seen && !stop) {
                        Thread.onSpinWait();
                    }
                    if (stop) {
                        return;
                    }
                    seen = round;
                    int k = skew;
                    if (k > 0) {
                        spin(k);
                    }
                    release.invoke(sem);
                    doneCount.incrementAndGet();
                }
            } catch (ReflectiveOperationException e) {
                throw new RuntimeException(e);
            }
        }, "releaser");
        releaser.setDaemon(true);
        releaser.start();

        long rounds = 0;
        long lost = 0;
        int span = 2 * maxSkew + 1;
        long[] lostBySkew = new long[span];
        String firstLost = null;
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        while (System.nanoTime() < end) {
            Object s = ctor.newInstance(0);
            sem = s;
            AtomicBoolean r = new AtomicBoolean();
            // skew > 0: the releaser spins that long after the start;
            // skew < 0: the acquirer does.
            int k = (int) (rounds % span) - maxSkew;
            skew = k;
            doneCount.set(0);
            round = rounds + 1;
            if (k < 0) {
                spin(-k);
            }
            CompletableFuture<?> f = null;
            if (runnableApi) {
                acquire.invoke(s, (Runnable) () -> r.set(true));
            } else {
                f = (CompletableFuture<?>) acquire.invoke(s);
            }
            while (doneCount.get() < 1) {
                Thread.onSpinWait();
            }
            boolean ok = runnableApi ? r.get() : f.isDone();
            if (!ok) {
                lost++;
                lostBySkew[k + maxSkew]++;
                if (firstLost == null) {
                    firstLost = "round " + rounds + ": after both calls returned the semaphore is " + s;
                }
            }
            rounds++;
        }
        stop = true;
        StringBuilder by = new StringBuilder();
        for (int i = 0; i < span; i++) {
            if (lostBySkew[i] > 0) {
                by.append(' ').append(i - maxSkew).append(':').append(lostBySkew[i]);
            }
        }
        String version = org.redisson.Redisson.class.getPackage().getImplementationVersion();
        if (firstLost != null) {
            System.out.println("first lost " + firstLost);
        }
        System.out.printf("lost rounds by skew (releaser's extra spins, negative: acquirer's; spins:count):%s%n",
                by.length() == 0 ? " none" : by);
        System.out.printf("RESULT Redisson %s %s (%s): %d of %d rounds lost the acquire (its task left queued beside a free permit)%n",
                version, cls.getName(), runnableApi ? "acquire(Runnable)" : "CompletableFuture acquire()", lost, rounds);
    }
}
