package lockcheck.spring;

import org.springframework.integration.redis.util.RedisLockRegistry.RedisLockType;

/** The driver's command line. */
final class Options {
    /** Which RedisLockType the registries run in, and the banner's name for it. */
    enum Mode {
        SPIN("spring-lock-spin", RedisLockType.SPIN_LOCK),
        PUBSUB("spring-lock-pubsub", RedisLockType.PUB_SUB_LOCK);

        final String driver;
        final RedisLockType type;

        Mode(String driver, RedisLockType type) {
            this.driver = driver;
            this.type = type;
        }
    }

    /** Lettuce's command timeout when --command-timeout-ms is not given. */
    static final int DEFAULT_COMMAND_TIMEOUT_MS = 1000;

    Mode mode = Mode.SPIN;
    /** Lettuce's commandTimeout: how long one command waits for its reply. */
    int commandTimeoutMs = DEFAULT_COMMAND_TIMEOUT_MS;

    static Options parse(String[] args) {
        Options o = new Options();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("flag " + a + " needs a value");
            }
            String v = args[++i];
            switch (a) {
                case "--mode" -> o.mode = switch (v) {
                    case "spin" -> Mode.SPIN;
                    case "pubsub" -> Mode.PUBSUB;
                    default -> throw new IllegalArgumentException("--mode " + v + ": want spin or pubsub");
                };
                case "--command-timeout-ms" -> {
                    try {
                        o.commandTimeoutMs = Integer.parseInt(v);
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException("--command-timeout-ms " + v + ": not a number");
                    }
                    if (o.commandTimeoutMs <= 0) {
                        throw new IllegalArgumentException("--command-timeout-ms " + v + ": want > 0");
                    }
                }
                default -> throw new IllegalArgumentException("unknown flag " + a
                        + " (usage: --mode spin|pubsub [--command-timeout-ms N])");
            }
        }
        return o;
    }
}
