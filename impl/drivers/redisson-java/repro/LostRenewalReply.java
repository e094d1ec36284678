import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.redisson.Redisson;
import org.redisson.RedissonMultiLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Redisson, library alone: does the watchdog keep renewing after the
 * reply to a renewal is lost with every connection of its client?
 *
 * <p>The holder's client talks to redis-server through a small TCP proxy
 * in this program, with lockcheck's driver's connection settings (a 1 s
 * command timeout, no retries). lockWatchdogTimeout is 1500 ms, so a
 * watchdog hold is renewed every 500 ms. 0.2 s after the grant the proxy is
 * armed for LOST renewals (default 1): the first script naming the lock
 * after that (the renewal at 0.5 s) is passed to Redis and every connection
 * of the client is closed in place of its reply (as a CLIENT KILL landing
 * between Redis running it and the client reading the answer); a second
 * (the retry) dies with the connections before it reaches Redis. With
 * KILL_AT_S, every connection is also closed that many seconds after the
 * grant, with no request in flight. The holder never unlocks.
 *
 * <p>The client waits out its 1 s timeout for the lost reply, so the 1.5 s
 * hold may run out: that is the fault's doing. A watchdog that goes on
 * sends its next renewal (or retry) after that, and learns then whether
 * the hold is gone. Prints "RESULT retried" when a script naming the lock
 * passed the proxy after the last kill, "RESULT silent" when none did in
 * 6 s, with when each script and kill happened (s from the grant).
 *
 * <pre>java -cp 'target/lib/*' LostRenewalReply.java PORT [lock|multi] [LOST] [KILL_AT_S]</pre>
 *
 * "lock" is an RLock; "multi" a RedissonMultiLock of three RLocks, whose
 * watchdog renews its three keys in one script.
 */
public final class LostRenewalReply {
    private static final String NAME = "lost-renewal-reply";

    public static void main(String[] args) throws Exception {
        if (args.length < 1 || args.length > 4 || (args.length >= 2 && !args[1].matches("lock|multi")) || (args.length >= 3 && !args[2].matches("[12]"))) {
            System.err.println("usage: LostRenewalReply PORT [lock|multi] [1|2] [KILL_AT_S]");
            System.exit(2);
        }
        boolean multi = args.length >= 2 && args[1].equals("multi");
        int lost = args.length >= 3 ? Integer.parseInt(args[2]) : 1;
        double killAt = args.length == 4 ? Double.parseDouble(args[3]) : -1;
        try (Proxy proxy = new Proxy(Integer.parseInt(args[0]))) {
            Config cfg = new Config();
            cfg.setLockWatchdogTimeout(1500);
            cfg.useSingleServer().setAddress("redis://127.0.0.1:" + proxy.port())
                    .setTimeout(1000).setRetryAttempts(0).setRetryInterval(1000);
            RedissonClient holder = Redisson.create(cfg);
            try {
                List<String> keys = multi ? List.of(NAME, NAME + ":m1", NAME + ":m2") : List.of(NAME);
                RLock lock = multi ? new RedissonMultiLock(keys.stream().map(holder::getLock).toArray(RLock[]::new)) : holder.getLock(NAME);
                lock.lock();
                long granted = System.nanoTime();
                proxy.watch(NAME, granted);
                TimeUnit.MILLISECONDS.sleep(200);
                proxy.arm(NAME, lost);
                if (killAt > 0) {
                    TimeUnit.NANOSECONDS.sleep((long) (killAt * 1e9) - (System.nanoTime() - granted));
                    proxy.killAll();
                }
                TimeUnit.NANOSECONDS.sleep(TimeUnit.SECONDS.toNanos(6) - (System.nanoTime() - granted));
                List<String> seen = proxy.seen();
                boolean retried = !seen.isEmpty() && !seen.get(seen.size() - 1).startsWith("(");
                System.out.printf("RESULT %s (Redisson %s, %s, %d lost renewal(s)%s): %s%n", retried ? "retried" : "silent",
                        Redisson.class.getPackage().getImplementationVersion(), multi ? "RedissonMultiLock of 3" : "RLock", proxy.sprung(),
                        killAt > 0 ? String.format(", every connection killed at %.2f s", killAt) : "", seen);
            } finally {
                holder.shutdown();
            }
        }
    }

    /**
     * A TCP proxy in front of one redis-server. Armed with a name, it passes
     * the next EVAL or EVALSHA naming it to Redis and closes every
     * connection it carries instead of passing the reply on.
     */
    static final class Proxy implements AutoCloseable {
        private final ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        private final int upstream;
        private final List<Socket> open = new CopyOnWriteArrayList<>();
        private final java.util.concurrent.atomic.AtomicInteger springs = new java.util.concurrent.atomic.AtomicInteger();
        private volatile int armedFor;
        private volatile String armed;
        private volatile String watched;
        private volatile long since;
        private final List<String> seen = new CopyOnWriteArrayList<>();

        Proxy(int upstream) throws IOException {
            this.upstream = upstream;
            Thread t = new Thread(this::accept, "proxy-accept");
            t.setDaemon(true);
            t.start();
        }

        int port() { return listener.getLocalPort(); }

        /** Arms the proxy for the next n scripts naming name. */
        void arm(String name, int n) {
            armedFor = n;
            armed = name;
        }

        /** Notes when each script naming name passes, from since on (System.nanoTime). */
        void watch(String name, long since) {
            this.since = since;
            watched = name;
        }

        List<String> seen() { return seen; }

        int sprung() { return springs.get(); }

        private void accept() {
            try {
                while (true) {
                    Socket client = listener.accept();
                    Socket server = new Socket(InetAddress.getLoopbackAddress(), upstream);
                    open.add(client);
                    open.add(server);
                    AtomicBoolean mute = new AtomicBoolean();
                    daemon(() -> requests(client, server, mute));
                    daemon(() -> replies(server, client, mute));
                }
            } catch (IOException e) {
                // closed
            }
        }

        /** Forwards requests; the armed one mutes the replies and kills everything. */
        private void requests(Socket client, Socket server, AtomicBoolean mute) {
            try {
                InputStream in = client.getInputStream();
                OutputStream out = server.getOutputStream();
                while (true) {
                    ByteArrayOutputStream raw = new ByteArrayOutputStream();
                    List<String> argv = readRequest(in, raw);
                    if (argv == null) {
                        return;
                    }
                    if (isScriptNaming(argv, watched)) {
                        seen.add(String.format("%.2f", (System.nanoTime() - since) / 1e9));
                    }
                    int k = isScriptNaming(argv, armed) ? springs.getAndUpdate(j -> j < armedFor ? j + 1 : j) : armedFor;
                    boolean spring = k < armedFor;
                    if (spring) {
                        mute.set(true); // its reply, and anything after it, never reaches the client
                    }
                    if (!spring || k == 0) { // the first sprung request runs in Redis; a later one dies with its connection
                        out.write(raw.toByteArray());
                        out.flush();
                    }
                    if (spring) {
                        TimeUnit.MILLISECONDS.sleep(100); // Redis runs it
                        killAll();
                        return;
                    }
                }
            } catch (IOException | InterruptedException e) {
                // the connection ended
            }
        }

        private void replies(Socket server, Socket client, AtomicBoolean mute) {
            byte[] buf = new byte[64 << 10];
            try {
                InputStream in = server.getInputStream();
                OutputStream out = client.getOutputStream();
                for (int n; (n = in.read(buf)) > 0; ) {
                    if (!mute.get()) {
                        out.write(buf, 0, n);
                        out.flush();
                    }
                }
            } catch (IOException e) {
                // the connection ended
            } finally {
                close(client);
            }
        }

        private static boolean isScriptNaming(List<String> argv, String name) {
            if (name == null || argv.isEmpty()) {
                return false;
            }
            String cmd = argv.get(0).toUpperCase();
            return (cmd.equals("EVAL") || cmd.equals("EVALSHA")) && argv.stream().anyMatch(a -> a.equals(name) || a.startsWith(name + ":"));
        }

        void killAll() {
            if (since > 0) {
                seen.add(String.format("(kill %.2f)", (System.nanoTime() - since) / 1e9));
            }
            for (Socket s : open) {
                close(s);
            }
            open.clear();
        }

        /** Reads one RESP array of bulk strings into argv, its bytes into raw (null at EOF). */
        private static List<String> readRequest(InputStream in, ByteArrayOutputStream raw) throws IOException {
            String head = readLine(in, raw);
            if (head == null) {
                return null;
            }
            if (!head.startsWith("*")) {
                return List.of(head); // an inline command
            }
            int n = Integer.parseInt(head.substring(1));
            List<String> argv = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                String len = readLine(in, raw);
                if (len == null) {
                    return null;
                }
                byte[] b = in.readNBytes(Integer.parseInt(len.substring(1)) + 2);
                raw.write(b);
                argv.add(new String(b, 0, Math.max(0, b.length - 2), StandardCharsets.UTF_8));
            }
            return argv;
        }

        private static String readLine(InputStream in, ByteArrayOutputStream raw) throws IOException {
            StringBuilder sb = new StringBuilder();
            for (int c; (c = in.read()) >= 0; ) {
                raw.write(c);
                if (c == '\n') {
                    return sb.toString().stripTrailing();
                }
                sb.append((char) c);
            }
            return null;
        }

        private static void daemon(Runnable r) {
            Thread t = new Thread(r, "proxy-pump");
            t.setDaemon(true);
            t.start();
        }

        private static void close(Socket s) {
            try {
                s.close();
            } catch (IOException e) {
                // already closed
            }
        }

        @Override
        public void close() throws IOException {
            listener.close();
            killAll();
        }
    }
}
