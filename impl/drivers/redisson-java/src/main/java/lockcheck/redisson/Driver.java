package lockcheck.redisson;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Properties;

/**
 * lockcheck's driver for Redisson, protocol 1 (impl/driver/doc.go): one process
 * is one lock owner, requests on stdin and replies on stdout, one JSON object a
 * line, logs on stderr.
 *
 * <p>Usage: {@code java -cp redisson-driver.jar:lib/* lockcheck.redisson.Driver
 * --lock lock|fair|fenced|spin [--command-timeout-ms N]}.
 *
 * <p>Owner identity: Redisson ties a hold to {@code <client id>:<thread id>}. The
 * driver has one Redisson client and handles every request on its main thread,
 * passing that thread's id to every call (the {@code *Async(..., threadId)}
 * overloads; the hold count, which has no such overload, is asked from the same
 * thread). No other thread ever calls a lock, so one process is one owner.
 *
 * <p>The real stdout is kept for the protocol and {@code System.out} points at
 * stderr, so that nothing a library prints can break the stream of replies.
 */
public final class Driver {
    static final ObjectMapper JSON = new ObjectMapper();

    private final PrintStream out;
    private final Locks locks;

    private Driver(PrintStream out, Locks locks) {
        this.out = out;
        this.locks = locks;
    }

    public static void main(String[] args) throws IOException {
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
        System.setOut(System.err);
        Options opts;
        try {
            opts = Options.parse(args);
        } catch (IllegalArgumentException e) {
            log(e.getMessage());
            System.exit(2);
            return;
        }
        Locks locks = new Locks(opts, Thread.currentThread().getId());
        Driver d = new Driver(out, locks);
        d.send(d.banner(opts));
        d.serve(System.in);
        // End of input: exit at once, unlocking nothing (Redisson's threads
        // are not daemons, so System.exit, not a return).
        System.exit(0);
    }

    private ObjectNode banner(Options opts) {
        ObjectNode b = JSON.createObjectNode();
        b.put("protocol", 1);
        b.put("driver", opts.driverName());
        b.put("version", redissonVersion());
        var caps = b.putArray("capabilities");
        for (String c : opts.kind.capabilities) {
            caps.add(c);
        }
        var topo = b.putArray("topologies");
        for (String t : Topology.SUPPORTED) {
            topo.add(t);
        }
        return b;
    }

    private void serve(InputStream in) throws IOException {
        BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
        Misbehave mis = Misbehave.fromEnv();
        long n = 0;
        for (String line; (line = r.readLine()) != null; ) {
            if (line.isBlank()) {
                continue;
            }
            if (mis != null && ++n >= mis.after) {
                mis.act(out);
            }
            JsonNode req;
            try {
                req = JSON.readTree(line);
            } catch (IOException e) {
                log("bad request line: " + line);
                System.exit(2);
                return;
            }
            ObjectNode rep = JSON.createObjectNode();
            rep.put("id", req.path("id").asLong());
            rep.setAll(locks.handle(req));
            send(rep);
        }
    }

    private void send(ObjectNode msg) {
        try {
            out.print(JSON.writeValueAsString(msg));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        out.print('\n');
        out.flush();
    }

    static void log(String msg) {
        System.err.println("redisson driver: " + msg);
    }

    /** The Redisson version this driver was built against (Maven fills it in). */
    static String redissonVersion() {
        Properties p = new Properties();
        try (InputStream in = Driver.class.getResourceAsStream("/lockcheck-driver.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            log("cannot read the build's properties: " + e);
        }
        return p.getProperty("redisson.version", "unknown");
    }
}
