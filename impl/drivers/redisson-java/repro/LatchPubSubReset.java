import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.redisson.Redisson;
import org.redisson.api.RCountDownLatch;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Redisson's RCountDownLatch, library alone: the latch opens while the
 * waiter's pub/sub connection is being replaced. Two clients with lockcheck's
 * driver settings (1 s command and subscription timeout, no retries, pools
 * of 2, 2 threads): client "counter" sets a fresh latch to 1; client
 * "waiter" calls awaitAsync(2500 ms) (with "sync": await(2500 ms) on a
 * thread of its own) and, 100 ms after Redis shows its subscription (PUBSUB
 * NUMSUB of the latch's channel is 1), one of three schedules runs:
 * <ul>
 * <li>gap: a third socket sends CLIENT KILL TYPE pubsub, and 0-2 ms later
 * (seeded) the counter counts down: its script publishes the zero-count
 * message while the waiter is resubscribing.
 * <li>none (control): no kill, the counter counts down.
 * <li>after (control): the kill, then the count-down once the waiter is
 * subscribed again (NUMSUB down to 0, then back to 1).
 * </ul>
 * Each trial notes the channel's subscribers right after the count-down
 * (0: the message reached no one), how long after the kill the waiter was
 * subscribed again, and when and how the await returned. An await that
 * returned after more than 1 s, or false, on the open latch (the count is 0
 * once the count-down has returned) "slept". Each trial has clients of its
 * own, so that no reconnection of an earlier kill is still under way.
 * Prints each sleeper and a RESULT line per schedule.
 *
 * <pre>java -cp 'target/lib/*' LatchPubSubReset.java PORT TRIALS SEED [async|sync]</pre>
 */
public final class LatchPubSubReset {
    static final long WAIT_MS = 2500, SETTLE_MS = 100;

    public static void main(String[] args) throws Exception {
        if (args.length < 3 || args.length > 4 || (args.length == 4 && !args[3].matches("async|sync"))) {
            System.err.println("usage: LatchPubSubReset PORT TRIALS SEED [async|sync]");
            System.exit(2);
        }
        int port = Integer.parseInt(args[0]);
        int trials = Integer.parseInt(args[1]);
        Random rng = new Random(Long.parseLong(args[2]));
        boolean sync = args.length == 4 && args[3].equals("sync");
        String version = Redisson.class.getPackage().getImplementationVersion();
        String[] modes = {"gap", "none", "after"};
        int[] unclean = new int[modes.length], slept = new int[modes.length], sleptBack = new int[modes.length], notBack = new int[modes.length], falses = new int[modes.length], missed = new int[modes.length], runs = new int[modes.length];
        long[] resub = new long[modes.length], woke = new long[modes.length];
        try (Socket admin = new Socket("127.0.0.1", port)) {
            for (int i = 0; i < trials; i++) {
                for (int m = 0; m < modes.length; m++) {
                    String mode = modes[m];
                    // Fresh clients for each trial: no reconnection of an
                    // earlier trial's kill is still under way.
                    RedissonClient waiter = Redisson.create(config(port, "waiter"));
                    RedissonClient counter = Redisson.create(config(port, "counter"));
                    try {
                    String name = "latch-pubsub-reset-" + System.nanoTime();
                    String channel = "redisson_countdownlatch__channel__{" + name + "}";
                    counter.getCountDownLatch(name).trySetCount(1);
                    RCountDownLatch wl = waiter.getCountDownLatch(name);
                    long called = System.nanoTime();
                    CompletableFuture<Boolean> got = sync
                            ? CompletableFuture.supplyAsync(() -> {
                                try {
                                    return wl.await(WAIT_MS, TimeUnit.MILLISECONDS);
                                } catch (InterruptedException e) {
                                    throw new RuntimeException(e);
                                }
                            })
                            : wl.awaitAsync(WAIT_MS, TimeUnit.MILLISECONDS).toCompletableFuture();
                    if (!waitSubscribed(admin, channel, 1000)) {
                        System.out.printf("trial %d %s: the waiter never subscribed, skipped%n", i, mode);
                        got.get();
                        continue;
                    }
                    runs[m]++;
                    // Let the await register its listener (awaitAsync reads
                    // the count, then listens): a count-down right at the
                    // subscription can be missed with no fault at all.
                    TimeUnit.MILLISECONDS.sleep(SETTLE_MS);
                    long killed = 0;
                    if (!mode.equals("none")) {
                        call(admin, "CLIENT", "KILL", "TYPE", "pubsub");
                        killed = System.nanoTime();
                    }
                    if (mode.equals("gap")) {
                        LockSupport.parkNanos((long) (rng.nextDouble() * 2_000_000));
                    } else if (mode.equals("after")) {
                        // Only a kill Redis showed (the subscriber gone) and a
                        // resubscription it showed (back) make a clean control.
                        long gone = System.nanoTime() + 200_000_000L;
                        boolean dropped;
                        while (!(dropped = numsub(admin, channel) == 0) && System.nanoTime() < gone) {
                            LockSupport.parkNanos(200_000);
                        }
                        if (!dropped || !waitSubscribed(admin, channel, 2000)) {
                            unclean[m]++;
                            runs[m]--;
                            counter.getCountDownLatch(name).countDown();
                            got.get();
                            continue;
                        }
                    }
                    long opened = System.nanoTime();
                    counter.getCountDownLatch(name).countDown();
                    long subsAfter = numsub(admin, channel);
                    if (subsAfter == 0) {
                        missed[m]++;
                    }
                    long back = -1;
                    if (killed != 0 && waitSubscribed(admin, channel, WAIT_MS)) {
                        back = (System.nanoTime() - killed) / 1_000_000;
                        resub[m] = Math.max(resub[m], back);
                    } else if (killed != 0) {
                        notBack[m]++;
                    }
                    boolean ok = got.get();
                    long returned = System.nanoTime();
                    long count = counter.getCountDownLatch(name).getCount();
                    long late = (returned - opened) / 1_000_000;
                    if (!ok) {
                        falses[m]++;
                    }
                    if (late > 1000 || !ok) {
                        slept[m]++;
                        if (killed != 0 && back >= 0) {
                            sleptBack[m]++;
                        }
                        System.out.printf("trial %d %s: await returned %s %d ms after its call, %d ms after the count-down "
                                        + "(count now %d; %d subscriber(s) just after the count-down; waiter subscribed again %d ms after the kill)%n",
                                i, mode, ok, (returned - called) / 1_000_000, late, count, subsAfter, back);
                    } else {
                        woke[m] = Math.max(woke[m], late);
                    }
                    } finally {
                        waiter.shutdown();
                        counter.shutdown();
                    }
                }
            }
        }
        for (int m = 0; m < modes.length; m++) {
            System.out.printf("RESULT Redisson %s %s, %s: %d of %d awaits slept beside the open latch (%d answered false); "
                            + "the others woke within %d ms of the count-down; %d count-downs published to no subscriber%s%n",
                    version, sync ? "await(2500 ms)" : "awaitAsync(2500 ms)", modes[m], slept[m], runs[m], falses[m], woke[m], missed[m],
                    modes[m].equals("none") ? "" : (unclean[m] > 0 ? "; " + unclean[m] + " trials left out (the kill or the resubscription not seen before the count-down)" : "") + String.format("; the waiter was subscribed again within %d ms of the kill in %d trials, "
                            + "%d of which slept, and not within the wait in %d", resub[m], runs[m] - notBack[m], sleptBack[m], notBack[m]));
        }
    }

    private static Config config(int port, String client) {
        Config cfg = new Config();
        cfg.setThreads(2);
        cfg.setNettyThreads(2);
        cfg.useSingleServer().setAddress("redis://127.0.0.1:" + port).setClientName(client)
                .setConnectionMinimumIdleSize(1).setConnectionPoolSize(2)
                .setSubscriptionConnectionMinimumIdleSize(1).setSubscriptionConnectionPoolSize(2)
                .setTimeout(1000).setSubscriptionTimeout(1000).setRetryAttempts(0).setRetryInterval(1000);
        return cfg;
    }

    /** Waits up to ms for channel to have a subscriber; false if it had none by then. */
    private static boolean waitSubscribed(Socket admin, String channel, long ms) throws Exception {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
        while (numsub(admin, channel) == 0) {
            if (System.nanoTime() > end) {
                return false;
            }
            LockSupport.parkNanos(200_000);
        }
        return true;
    }

    /** PUBSUB NUMSUB channel: the reply is *2, the channel, :N. */
    private static long numsub(Socket s, String channel) throws IOException {
        send(s, "PUBSUB", "NUMSUB", channel);
        InputStream in = s.getInputStream();
        readLine(in); // *2
        readLine(in); // $len
        readLine(in); // the channel
        return Long.parseLong(readLine(in).substring(1));
    }

    private static String call(Socket s, String... args) throws IOException {
        send(s, args);
        return readLine(s.getInputStream());
    }

    private static void send(Socket s, String... args) throws IOException {
        StringBuilder cmd = new StringBuilder("*" + args.length + "\r\n");
        for (String a : args) {
            cmd.append('$').append(a.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(a).append("\r\n");
        }
        s.getOutputStream().write(cmd.toString().getBytes(StandardCharsets.UTF_8));
    }

    private static String readLine(InputStream in) throws IOException {
        StringBuilder b = new StringBuilder();
        for (int c; (c = in.read()) != '\n'; ) {
            if (c < 0) {
                throw new IOException("connection closed");
            }
            if (c != '\r') {
                b.append((char) c);
            }
        }
        return b.toString();
    }
}
