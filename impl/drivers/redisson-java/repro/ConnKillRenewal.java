import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Redisson's RLock, library alone: a watchdog hold while Redis kills the
 * holder's connections now and then. lockWatchdogTimeout 1500 ms (renewed
 * every 500 ms), command timeout 1000 ms and no retries, as lockcheck's
 * driver configures Redisson (with a fourth argument "retries", Redisson's
 * own default timeout and retries instead). The holder takes the lock and never unlocks.
 * For SECONDS seconds, every 0.8-1.2 s (drawn from SEED) a second socket
 * sends CLIENT KILL ID for each of the holder's normal connections (client
 * name "holder"; its pub/sub connection is left alone), and every 5 ms it
 * asks EXISTS of the lock. One kill loses at most the renewal in flight;
 * the watchdog renews again a third of a lease later, so the lock should
 * never be gone. Prints "RESULT held" or "RESULT gone at T s, D s after
 * the last kill", with Redisson's version. With "multi", the hold is a
 * RedissonMultiLock of three locks (conn-kill, conn-kill:m1, conn-kill:m2,
 * as lockcheck's driver names a multilock's members), whose watchdog
 * renews all three in one script; the lock watched is conn-kill.
 *
 * <pre>java -cp 'target/lib/*' ConnKillRenewal.java PORT SECONDS SEED [retries] [multi]</pre>
 */
public final class ConnKillRenewal {
    public static void main(String[] args) throws Exception {
        List<String> opts = List.of(args).subList(Math.min(3, args.length), args.length);
        if (args.length < 3 || !List.of("retries", "multi").containsAll(opts)) {
            System.err.println("usage: ConnKillRenewal PORT SECONDS SEED [retries] [multi]");
            System.exit(2);
        }
        boolean retries = opts.contains("retries"), multi = opts.contains("multi");
        int port = Integer.parseInt(args[0]);
        long seconds = Long.parseLong(args[1]);
        Random rnd = new Random(Long.parseLong(args[2]));
        Config cfg = new Config();
        cfg.setLockWatchdogTimeout(1500);
        var server = cfg.useSingleServer().setAddress("redis://127.0.0.1:" + port).setClientName("holder");
        if (!retries) {
            server.setTimeout(1000).setRetryAttempts(0);
        }
        RedissonClient holder = Redisson.create(cfg);
        String version = Redisson.class.getPackage().getImplementationVersion();
        try (Socket admin = new Socket("127.0.0.1", port)) {
            RLock lock = multi
                    ? holder.getMultiLock(holder.getLock("conn-kill"), holder.getLock("conn-kill:m1"), holder.getLock("conn-kill:m2"))
                    : holder.getLock("conn-kill");
            lock.lock();
            long start = System.nanoTime(), lastKill = start;
            long nextKill = start + gap(rnd);
            while (System.nanoTime() - start < TimeUnit.SECONDS.toNanos(seconds)) {
                if (System.nanoTime() >= nextKill) {
                    List<String> ids = holderIds(admin);
                    for (String id : ids) {
                        call(admin, "CLIENT", "KILL", "ID", id);
                    }
                    lastKill = System.nanoTime();
                    System.err.printf("%s kill %s at %.3f s%n", java.time.LocalTime.now(), ids, secs(lastKill - start));
                    nextKill = lastKill + gap(rnd);
                }
                if (call(admin, "EXISTS", "conn-kill").equals(":0")) {
                    System.out.printf("RESULT gone at %.3f s, %.3f s after the last kill (Redisson %s%s)%n",
                            secs(System.nanoTime() - start), secs(System.nanoTime() - lastKill), version, multi ? ", multilock" : "");
                    return;
                }
                TimeUnit.MILLISECONDS.sleep(5);
            }
            System.out.printf("RESULT held (Redisson %s%s: the lock was there for %d s)%n", version, multi ? ", multilock" : "", seconds);
        } finally {
            holder.shutdown();
        }
    }

    private static long gap(Random rnd) {
        return TimeUnit.MILLISECONDS.toNanos(800 + rnd.nextInt(401));
    }

    private static double secs(long nanos) {
        return nanos / 1e9;
    }

    /** The ids of the holder's connections but its pub/sub one, from CLIENT LIST. */
    private static List<String> holderIds(Socket s) throws IOException {
        List<String> ids = new ArrayList<>();
        for (String line : call(s, "CLIENT", "LIST").split("\n")) {
            if (line.contains(" name=holder ") && !line.contains(" flags=P ")) {
                ids.add(line.substring(line.indexOf("id=") + 3, line.indexOf(' ')));
            }
        }
        return ids;
    }

    /** Sends one command over s and returns its reply: a line, or a bulk string's body. */
    private static String call(Socket s, String... args) throws IOException {
        StringBuilder cmd = new StringBuilder("*" + args.length + "\r\n");
        for (String a : args) {
            cmd.append('$').append(a.length()).append("\r\n").append(a).append("\r\n");
        }
        s.getOutputStream().write(cmd.toString().getBytes(StandardCharsets.UTF_8));
        var in = s.getInputStream();
        String head = readLine(in);
        if (!head.startsWith("$")) {
            return head;
        }
        byte[] body = in.readNBytes(Integer.parseInt(head.substring(1)) + 2);
        return new String(body, 0, body.length - 2, StandardCharsets.UTF_8);
    }

    private static String readLine(java.io.InputStream in) throws IOException {
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
