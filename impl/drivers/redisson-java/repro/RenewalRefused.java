import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

/**
 * Redisson's RLock, library alone: one renewal answered with an error.
 * lockWatchdogTimeout 1500 ms, so a watchdog hold is renewed every 500 ms.
 * From 0.2 s to 0.8 s after the grant Redis refuses the default user's
 * scripts (ACL SETUSER default -evalsha -eval: the renewal at 0.5 s is
 * answered NOPERM); then everything is allowed again. The holder never
 * unlocks. At 3 s the lock should still be there. Before 3.44.0 the
 * watchdog removed its renewal entry at the first failed renewal, so the
 * lock runs out under its holder. Prints "RESULT held" or "RESULT gone"
 * with Redisson's version.
 *
 * <pre>java -cp 'target/lib/*' RenewalRefused.java PORT</pre>
 */
public final class RenewalRefused {
    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: RenewalRefused PORT");
            System.exit(2);
        }
        Config cfg = new Config();
        cfg.setLockWatchdogTimeout(1500);
        cfg.useSingleServer().setAddress("redis://127.0.0.1:" + args[0]);
        int port = Integer.parseInt(args[0]);
        RedissonClient holder = Redisson.create(cfg);
        try {
            RLock lock = holder.getLock("renewal-refused");
            lock.lock();
            long granted = System.nanoTime();
            TimeUnit.MILLISECONDS.sleep(200);
            acl(port, "-evalsha", "-eval");
            TimeUnit.MILLISECONDS.sleep(600);
            acl(port, "+@all");
            TimeUnit.NANOSECONDS.sleep(TimeUnit.SECONDS.toNanos(3) - (System.nanoTime() - granted));
            boolean held = holder.getBucket("renewal-refused", StringCodec.INSTANCE).isExists();
            System.out.printf("RESULT %s (Redisson %s: at 3 s the never-released lock is %s)%n",
                    held ? "held" : "gone", Redisson.class.getPackage().getImplementationVersion(), held ? "there" : "gone");
        } finally {
            holder.shutdown();
        }
    }

    /** ACL SETUSER default RULES..., sent over a socket of its own (not scriptable). */
    private static void acl(int port, String... rules) throws IOException {
        StringBuilder cmd = new StringBuilder("*" + (rules.length + 3) + "\r\n");
        for (String a : concat(new String[] {"ACL", "SETUSER", "default"}, rules)) {
            cmd.append('$').append(a.length()).append("\r\n").append(a).append("\r\n");
        }
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.getOutputStream().write(cmd.toString().getBytes(StandardCharsets.UTF_8));
            String reply = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8)).readLine();
            if (!"+OK".equals(reply)) {
                throw new IOException("ACL SETUSER: " + reply);
            }
        }
    }

    private static String[] concat(String[] a, String[] b) {
        String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
