package lockcheck.driver;

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
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Protocols 1 and 2 (impl/driver/doc.go) for a Java driver: requests on
 * stdin and replies on stdout, one JSON object a line, logs on stderr. The
 * banner comes first; at the end of input the process exits at once with
 * status 0, unlocking nothing (System.exit: the libraries' threads are not
 * all daemons). A command line the library rejects, or a request line that
 * is no JSON, exits with status 2.
 *
 * <p>A library that hosts owners ({@link Library#owners}) announces protocol
 * 2 and capability "owners": one process then hosts several owners on the
 * library's one client, each owner a thread of its own ("lockcheck-owner-"
 * and its name), made at its first request. A request that names an owner
 * runs on that owner's thread, and its reply goes out when it is done, in
 * any order (replies are written one at a time); the thread that reads
 * stdin never waits for a library call, so one owner's blocked lock does
 * not hold up another's. A request that names none (hello, and every
 * request of protocol 1) is served as before: in the order it came, on the
 * thread of the serving mode, which is then the one owner.
 *
 * <p>A library whose capabilities include "interrupt" has the protocol's
 * interrupt request served on the thread that reads stdin: it interrupts
 * the thread of the owner serving the request it names (see {@link
 * #interrupt}); the library answers that request as its API answers an
 * interrupted call.
 *
 * <p>The real stdout is kept for the protocol and {@code System.out} points
 * at stderr, so that nothing a library prints can break the stream of
 * replies.
 *
 * <p>Every reply is due within the request's timeout_ms (30000 when absent):
 * the library is handed a deadline 25 ms before it.
 */
public final class Protocol {
    /** The JSON of requests and replies. */
    public static final ObjectMapper JSON = new ObjectMapper();

    private static final long SLACK_MS = 25;

    /** Which thread serves the requests. */
    public enum Serving {
        /**
         * The main thread, which reads them: the library bounds each call by
         * the deadline itself.
         */
        MAIN_THREAD,
        /**
         * One owner thread (a daemon): the main thread hands each request to
         * it and answers error ("no answer from the library by the request's
         * deadline") for one still running at the deadline. That call, which
         * the library cannot cancel, is left alone: lockcheck ends the process.
         */
        OWNER_THREAD
    }

    /** Makes the library from the command line; IllegalArgumentException is a bad command line. */
    public interface Opener {
        Library open(String[] args);
    }

    private final PrintStream out;
    private final Log log;
    private final Library lib;
    private final Serving serving;
    private final ExecutorService owner;
    /** The threads of named owners (protocol 2), by owner name. */
    private final Map<String, ExecutorService> owners = new ConcurrentHashMap<>();
    /**
     * The owners' threads by the id of the request they serve, while they
     * serve it: an interrupt reaches a thread only then (its lock).
     */
    private final Map<Long, Thread> inFlight = new HashMap<>();
    /**
     * The ids of named owners' requests handed to their threads and not
     * begun yet, each true once an interrupt came for it (inFlight's lock).
     */
    private final Map<Long, Boolean> queued = new HashMap<>();
    /** Waits for named owners' calls of an OWNER_THREAD library, to answer at their deadline. */
    private final ExecutorService waiters = Executors.newCachedThreadPool(r -> daemon(r, "lockcheck-reply"));
    /** The process's own stalls, reported with the replies. */
    private final StallWatch stalls = StallWatch.start();

    private Protocol(PrintStream out, Log log, Library lib, Serving serving) {
        this.out = out;
        this.log = log;
        this.lib = lib;
        this.serving = serving;
        this.owner = serving == Serving.OWNER_THREAD ? Executors.newSingleThreadExecutor(r -> daemon(r, "lockcheck-owner")) : null;
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /**
     * Runs a driver process: opens the library from args (on the calling
     * thread, the main one), sends the banner, serves stdin until its end
     * and exits. It does not return.
     */
    public static void run(Log log, String[] args, Serving serving, Opener opener) throws IOException {
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
        System.setOut(System.err);
        Library lib;
        try {
            lib = opener.open(args);
        } catch (IllegalArgumentException e) {
            log.print(e.getMessage());
            System.exit(2);
            return;
        }
        Protocol p = new Protocol(out, log, lib, serving);
        p.send(p.banner());
        p.serve(System.in);
        System.exit(0);
    }

    private ObjectNode banner() {
        ObjectNode b = JSON.createObjectNode();
        b.put("protocol", lib.owners() ? 2 : 1);
        b.put("driver", lib.driver());
        b.put("version", lib.version());
        var caps = b.putArray("capabilities");
        lib.capabilities().forEach(caps::add);
        if (lib.owners()) {
            caps.add("owners");
        }
        var topo = b.putArray("topologies");
        lib.topologies().forEach(topo::add);
        return b;
    }

    private void serve(InputStream in) throws IOException {
        BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
        Library.LineHook hook = lib.lineHook();
        long n = 0;
        for (String line; (line = r.readLine()) != null; ) {
            if (line.isBlank()) {
                continue;
            }
            n++;
            if (hook != null) {
                hook.line(out, n);
            }
            JsonNode req;
            try {
                req = JSON.readTree(line);
            } catch (IOException e) {
                log.print("bad request line: " + line);
                System.exit(2);
                return;
            }
            String name = req.path("owner").asText("");
            if ("interrupt".equals(req.path("op").asText()) && lib.capabilities().contains("interrupt")) {
                reply(req, interrupt(req.path("target").asLong()));
                continue;
            }
            if (!name.isEmpty() && lib.owners()) {
                dispatch(req, name);
                continue;
            }
            reply(req, call(req));
        }
    }

    private void reply(JsonNode req, ObjectNode body) {
        ObjectNode rep = JSON.createObjectNode();
        rep.put("id", req.path("id").asLong());
        rep.setAll(body);
        stalls.drainInto(rep);
        send(rep);
    }

    /**
     * Serves a named owner's request on that owner's thread and replies when
     * it is done. A library that bounds its calls itself (MAIN_THREAD) runs
     * on the owner's thread; for an OWNER_THREAD library a waiter answers
     * error at the deadline, leaving the call alone, as {@link #call} does.
     */
    private void dispatch(JsonNode req, String name) {
        ExecutorService thread = owners.computeIfAbsent(name,
                n -> Executors.newSingleThreadExecutor(r -> daemon(r, "lockcheck-owner-" + n)));
        long timeout = timeoutOf(req);
        long wait = TimeUnit.MILLISECONDS.toNanos(Math.max(timeout - SLACK_MS, 1));
        long deadline = System.nanoTime() + wait;
        synchronized (inFlight) {
            queued.put(req.path("id").asLong(), false);
        }
        if (serving == Serving.MAIN_THREAD) {
            thread.execute(() -> reply(req, served(req, timeout, deadline)));
            return;
        }
        Future<ObjectNode> f = thread.submit(() -> served(req, timeout, deadline));
        waiters.execute(() -> reply(req, awaitReply(f, wait)));
    }

    /**
     * Interrupts the owner thread serving request target (Thread.interrupt):
     * ok when it was still being served, or waits for its thread (then it
     * begins interrupted), fail when it ended or never came. The library
     * answers the interrupted request itself.
     */
    private ObjectNode interrupt(long target) {
        synchronized (inFlight) {
            Thread t = inFlight.get(target);
            if (t != null) {
                t.interrupt();
                return Replies.ok();
            }
            if (queued.containsKey(target)) {
                queued.put(target, true); // interrupted as it begins, as a thread interrupted before its call
                return Replies.ok();
            }
            return Replies.fail();
        }
    }

    /**
     * Serves a named owner's request on the calling thread (the owner's),
     * open to an interrupt while it runs; the interrupt status is cleared
     * when it ends, so that an interrupt never reaches a later request.
     */
    private ObjectNode served(JsonNode req, long timeoutMs, long deadline) {
        long id = req.path("id").asLong();
        synchronized (inFlight) {
            inFlight.put(id, Thread.currentThread());
            if (Boolean.TRUE.equals(queued.remove(id))) {
                Thread.currentThread().interrupt();
            }
        }
        try {
            return handle(req, timeoutMs, deadline);
        } finally {
            synchronized (inFlight) {
                inFlight.remove(id);
                Thread.interrupted();
            }
        }
    }

    private static long timeoutOf(JsonNode req) {
        long timeout = req.path("timeout_ms").asLong(0);
        return timeout <= 0 ? 30_000 : timeout;
    }

    /** Answers req by its deadline, on the thread of the serving mode. */
    private ObjectNode call(JsonNode req) {
        long t = timeoutOf(req);
        long wait = TimeUnit.MILLISECONDS.toNanos(Math.max(t - SLACK_MS, 1));
        long deadline = System.nanoTime() + wait;
        if (owner == null) {
            return handle(req, t, deadline);
        }
        return awaitReply(owner.submit(() -> handle(req, t, deadline)), wait);
    }

    /** The reply of f within wait ns: error if it is still running then. */
    private ObjectNode awaitReply(Future<ObjectNode> f, long wait) {
        try {
            return f.get(wait, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            return Replies.error("no answer from the library by the request's deadline", false);
        } catch (ExecutionException e) {
            return lib.errorOf(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Replies.error("interrupted", false);
        }
    }

    private ObjectNode handle(JsonNode req, long timeoutMs, long deadline) {
        try {
            return lib.handle(req, timeoutMs, deadline);
        } catch (Exception e) {
            return lib.errorOf(e);
        }
    }

    private synchronized void send(ObjectNode msg) {
        try {
            out.print(JSON.writeValueAsString(msg));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        out.print('\n');
        out.flush();
    }

    /**
     * A property of the driver's build (the jar's /lockcheck-driver.properties,
     * which Maven fills in: the library's version), or "unknown".
     */
    public static String buildProperty(Log log, String key) {
        Properties p = new Properties();
        try (InputStream in = Protocol.class.getResourceAsStream("/lockcheck-driver.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            log.print("cannot read the build's properties: " + e);
        }
        return p.getProperty(key, "unknown");
    }
}
