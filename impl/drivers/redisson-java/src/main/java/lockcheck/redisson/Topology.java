package lockcheck.redisson;

import com.fasterxml.jackson.databind.JsonNode;

import org.redisson.config.BaseMasterSlaveServersConfig;
import org.redisson.config.ClusterServersConfig;
import org.redisson.config.Config;
import org.redisson.config.ReadMode;
import org.redisson.config.SentinelServersConfig;
import org.redisson.config.SingleServerConfig;

import java.util.ArrayList;
import java.util.List;

/**
 * Turns hello's connection fields into a Redisson {@link Config}: one server
 * ("topology" absent or "single"), a Sentinel-monitored master ("sentinel":
 * "redis" lists the sentinels, "master_name" names the master) or a Cluster
 * ("cluster": "redis" lists seed nodes).
 *
 * <p>Every call is bounded: Redisson's {@code timeout} (the reply wait of one
 * command) is the driver's --command-timeout-ms, {@code retryAttempts} is 0 (a
 * script resent after a lost reply would count a reentry twice, so Redisson's
 * retry interval never applies) and the pools are small (one process is one
 * owner, with one request in flight).
 */
final class Topology {
    static final List<String> SUPPORTED = List.of("single", "sentinel", "cluster");

    private Topology() {
    }

    static Config config(JsonNode hello, Options opts, long connectTimeoutMs) {
        List<String> addrs = new ArrayList<>();
        hello.path("redis").forEach(a -> addrs.add("redis://" + a.asText()));
        if (addrs.isEmpty()) {
            throw new IllegalArgumentException("hello without redis address");
        }
        String topology = hello.path("topology").asText("single");
        String client = hello.path("client").asText("driver");
        long watchdog = hello.path("watchdog_ms").asLong(0);
        int pool = pool(hello);

        Config c = new Config();
        c.setLockWatchdogTimeout(watchdog > 0 ? watchdog : 30_000);
        if (pool <= 2) {
            // One owner: small pools for one JVM per owner. A process of
            // owners keeps Redisson's defaults (16 threads, 32 netty
            // threads), as an application of many threads does.
            c.setThreads(2);
            c.setNettyThreads(2);
        }
        Compat.defaults(c);
        Object servers;
        switch (topology) {
            case "single" -> {
                if (addrs.size() != 1) {
                    throw new IllegalArgumentException("topology single wants one address, got " + addrs);
                }
                SingleServerConfig s = c.useSingleServer()
                        .setAddress(addrs.get(0))
                        .setDatabase(hello.path("db").asInt(0))
                        .setConnectionMinimumIdleSize(idle(pool))
                        .setConnectionPoolSize(pool)
                        .setSubscriptionConnectionMinimumIdleSize(1)
                        .setSubscriptionConnectionPoolSize(pool);
                servers = s;
            }
            case "sentinel" -> {
                String master = hello.path("master_name").asText("");
                if (master.isEmpty()) {
                    throw new IllegalArgumentException("topology sentinel without master_name");
                }
                SentinelServersConfig s = c.useSentinelServers()
                        .setMasterName(master)
                        .setDatabase(hello.path("db").asInt(0));
                addrs.forEach(s::addSentinelAddress);
                Compat.sentinel(s, hello.path("sentinel_password").asText(""));
                servers = masterOnly(s, pool);
            }
            case "cluster" -> {
                ClusterServersConfig s = c.useClusterServers();
                addrs.forEach(s::addNodeAddress);
                servers = masterOnly(s, pool);
            }
            default -> throw new IllegalArgumentException("unknown topology " + topology + " (want one of " + SUPPORTED + ")");
        }
        Compat.connection(servers, new Connection(hello.path("username").asText(""), hello.path("password").asText(""),
                "lockcheck-" + client, (int) connectTimeoutMs, opts.commandTimeoutMs));
        return c;
    }

    /**
     * The size of each connection pool: 2 for one owner (pools stay small,
     * one JVM per owner), and one connection per owner when hello's
     * "owners" puts several on this client, as an application sizes its
     * pool for its threads (Redisson's default is 64): a pool of 2 answered
     * 32 threads' first acquires with "Unable to acquire connection".
     */
    private static int pool(JsonNode hello) {
        return Math.max(2, hello.path("owners").asInt(1));
    }

    /**
     * The connections each pool opens at once: 1 for one owner; every one
     * for a process of owners, so that hello opens them before the run's
     * clock starts (32 threads whose first acquires each opened one on a
     * loaded machine met "Unable to acquire connection").
     */
    private static int idle(int pool) {
        return pool > 2 ? pool : 1;
    }

    /** Reads and writes go to the master only; pools stay small (pool). */
    private static <T extends BaseMasterSlaveServersConfig<T>> T masterOnly(T s, int pool) {
        return s.setReadMode(ReadMode.MASTER)
                .setMasterConnectionMinimumIdleSize(idle(pool))
                .setMasterConnectionPoolSize(pool)
                .setSlaveConnectionMinimumIdleSize(1)
                .setSlaveConnectionPoolSize(pool)
                .setSubscriptionConnectionMinimumIdleSize(1)
                .setSubscriptionConnectionPoolSize(pool);
    }
}
