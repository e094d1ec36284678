package lockcheck.spring;

import com.fasterxml.jackson.databind.JsonNode;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.SocketOptions;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisPassword;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.locks.Lock;

/**
 * The driver's RedisLockRegistry objects, one per lease: a registry has one
 * expireAfter for every lock it grants, so a lease the registry was not made
 * with is served by another registry over the same connection factory. The
 * registry of watchdog holds (lease_ms <= 0) expires after hello's
 * watchdog_ms and, from spring-integration-redis 6.4.0 (Compat.RENEWS),
 * renews its holds with the library's own renewal task
 * (setRenewalTaskScheduler: every expireAfter / 3); the others renew
 * nothing, nor does any registry of an older release.
 *
 * <p>Every registry has its own random clientId, the value of its keys in
 * Redis: a driver process is several library owners, one per lease, which
 * never meet (a reentry goes to the registry that holds the lock, see Locks).
 * All use one registryKey, so keys are {@code <REGISTRY_KEY>:<lock name>}.
 */
final class Registries {
    /** The registryKey of every registry: keys are "spring:<lock name>". */
    static final String REGISTRY_KEY = "spring";

    /** The map key of the watchdog registry (explicit leases are > 0). */
    static final long WATCHDOG = -1;

    private final Options opts;
    private final Map<Long, RedisLockRegistry> byLease = new HashMap<>();
    private LettuceConnectionFactory factory;
    private ThreadPoolTaskScheduler renewal;
    private long watchdogMs;

    Registries(Options opts) {
        this.opts = opts;
    }

    boolean connected() {
        return factory != null;
    }

    /**
     * Connects to the one Redis hello names (Lettuce, as Spring Boot's
     * LettuceConnectionFactory does) and checks the connection with PING.
     */
    void connect(JsonNode hello, long connectTimeoutMs) {
        JsonNode addrs = hello.path("redis");
        if (!addrs.isArray() || addrs.size() != 1) {
            throw new IllegalArgumentException("hello: want one Redis address, got " + addrs);
        }
        String topo = hello.path("topology").asText("single");
        if (!topo.isEmpty() && !topo.equals("single")) {
            throw new IllegalArgumentException("hello: topology " + topo + " is not supported (single only)");
        }
        String addr = addrs.get(0).asText();
        int colon = addr.lastIndexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("hello: bad address " + addr);
        }
        RedisStandaloneConfiguration server = new RedisStandaloneConfiguration(addr.substring(0, colon),
                Integer.parseInt(addr.substring(colon + 1)));
        server.setDatabase(hello.path("db").asInt(0));
        String user = hello.path("username").asText("");
        if (!user.isEmpty()) {
            server.setUsername(user);
        }
        String pass = hello.path("password").asText("");
        if (!pass.isEmpty()) {
            server.setPassword(RedisPassword.of(pass));
        }
        LettuceClientConfiguration client = LettuceClientConfiguration.builder()
                .commandTimeout(Duration.ofMillis(opts.commandTimeoutMs))
                .shutdownTimeout(Duration.ZERO)
                .clientName("lockcheck-" + hello.path("client").asText("driver"))
                .clientOptions(ClientOptions.builder()
                        .socketOptions(SocketOptions.builder().connectTimeout(Duration.ofMillis(connectTimeoutMs)).build())
                        .build())
                .build();
        LettuceConnectionFactory f = new LettuceConnectionFactory(server, client);
        f.afterPropertiesSet();
        Compat.start(f);
        try (RedisConnection c = f.getConnection()) {
            c.ping();
        }
        factory = f;
        watchdogMs = hello.path("watchdog_ms").asLong(30_000);
        if (watchdogMs <= 0) {
            watchdogMs = 30_000;
        }
    }

    /**
     * Warms the watchdog registry up as a Spring service that has run for a
     * while is: one tryLock(0) that Redis refuses (the key is held by a
     * registry of its own, which then releases it) loads the scripts and,
     * in PUB_SUB mode, starts the registry's listener container, which the
     * library otherwise starts inside the first contended acquire of the
     * process (1-2 s on a loaded machine). The key is
     * "spring:lockcheck-warmup:<random>", gone when this returns.
     */
    void warmUp() {
        String name = "lockcheck-warmup:" + UUID.randomUUID();
        RedisLockRegistry holder = new RedisLockRegistry(factory, REGISTRY_KEY, 10_000);
        Lock h = holder.obtain(name);
        if (!h.tryLock()) {
            throw new IllegalStateException("warm-up: the fresh key " + name + " is held");
        }
        try {
            if (get(WATCHDOG).obtain(name).tryLock()) {
                throw new IllegalStateException("warm-up: two registries hold " + name);
            }
        } finally {
            h.unlock();
            holder.destroy();
        }
    }

    long watchdogMs() {
        return watchdogMs;
    }

    /** The map key of a request's lease: lease_ms, or WATCHDOG for lease_ms <= 0. */
    static long leaseKey(JsonNode req) {
        long lease = req.path("lease_ms").asLong(0);
        return lease > 0 ? lease : WATCHDOG;
    }

    /** The registry of leaseKey (made on first use). */
    RedisLockRegistry get(long leaseKey) {
        if (factory == null) {
            throw new IllegalStateException("no hello yet");
        }
        return byLease.computeIfAbsent(leaseKey, this::make);
    }

    private RedisLockRegistry make(long leaseKey) {
        long expireAfter = leaseKey == WATCHDOG ? watchdogMs : leaseKey;
        RedisLockRegistry r = new RedisLockRegistry(factory, REGISTRY_KEY, expireAfter);
        r.setRedisLockType(opts.mode.type);
        if (leaseKey == WATCHDOG && Compat.RENEWS) {
            Compat.renewWith(r, renewal());
        }
        return r;
    }

    /**
     * The scheduler of the watchdog registry's renewals: Spring's
     * ThreadPoolTaskScheduler, which (as for any repeating task) logs a
     * renewal that throws and keeps the schedule.
     */
    private ThreadPoolTaskScheduler renewal() {
        if (renewal == null) {
            ThreadPoolTaskScheduler s = new ThreadPoolTaskScheduler();
            s.setPoolSize(1);
            s.setDaemon(true);
            s.setThreadNamePrefix("lock-renewal-");
            s.initialize();
            renewal = s;
        }
        return renewal;
    }
}
