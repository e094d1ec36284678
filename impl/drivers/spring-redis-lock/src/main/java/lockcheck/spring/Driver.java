package lockcheck.spring;

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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * lockcheck's driver for Spring Integration's RedisLockRegistry, protocol 1
 * (impl/driver/doc.go): one process is one lock owner, requests on stdin and
 * replies on stdout, one JSON object a line, logs on stderr.
 *
 * <p>Usage: {@code java -cp spring-lock-driver.jar:lib/* lockcheck.spring.Driver
 * --mode spin|pubsub [--command-timeout-ms N]}.
 *
 * <p>Owner identity: the library's lock is held by a thread (a ReentrantLock
 * in the JVM) and, in Redis, by the registry's clientId. Every request is
 * served on one thread, the owner thread; the main thread reads requests,
 * hands each to it and answers error for one still running 25 ms before its
 * timeout_ms (the library's lock() cannot be cancelled; the call is left
 * alone, and lockcheck ends the process).
 *
 * <p>The real stdout is kept for the protocol and {@code System.out} points at
 * stderr, so that nothing a library prints can break the stream of replies.
 */
public final class Driver {
    static final ObjectMapper JSON = new ObjectMapper();

    private static final long SLACK_MS = 25;

    private final PrintStream out;
    private final Locks locks;
    private final ExecutorService owner = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "lockcheck-owner");
        t.setDaemon(true);
        return t;
    });

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
        Driver d = new Driver(out, new Locks(opts));
        d.send(banner(opts));
        d.serve(System.in);
        // End of input: exit at once, unlocking nothing (Lettuce's and
        // Spring's threads are not all daemons, so System.exit).
        System.exit(0);
    }

    private static ObjectNode banner(Options opts) {
        ObjectNode b = JSON.createObjectNode();
        b.put("protocol", 1);
        b.put("driver", opts.mode.driver);
        b.put("version", libraryVersion());
        var caps = b.putArray("capabilities");
        caps.add("reentrant").add("watchdog").add("cycle");
        b.putArray("topologies").add("single");
        return b;
    }

    private void serve(InputStream in) throws IOException {
        BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
        for (String line; (line = r.readLine()) != null; ) {
            if (line.isBlank()) {
                continue;
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
            rep.setAll(call(req));
            send(rep);
        }
    }

    /** Runs req on the owner thread and waits for it until its deadline. */
    private ObjectNode call(JsonNode req) {
        long timeout = req.path("timeout_ms").asLong(0);
        if (timeout <= 0) {
            timeout = 30_000;
        }
        long wait = TimeUnit.MILLISECONDS.toNanos(Math.max(timeout - SLACK_MS, 1));
        long deadline = System.nanoTime() + wait;
        long t = timeout;
        Future<ObjectNode> f = owner.submit(() -> locks.handle(req, t, deadline));
        try {
            return f.get(wait, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            return Outcome.error("no answer from the library by the request's deadline", false);
        } catch (ExecutionException e) {
            return Outcome.of(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Outcome.error("interrupted", false);
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
        System.err.println("spring-lock driver: " + msg);
    }

    /** The spring-integration-redis version this driver was built against (Maven fills it in). */
    static String libraryVersion() {
        Properties p = new Properties();
        try (InputStream in = Driver.class.getResourceAsStream("/lockcheck-driver.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            log("cannot read the build's properties: " + e);
        }
        return p.getProperty("spring-integration.version", "unknown");
    }
}
