package lockcheck.spring;

import lockcheck.driver.Flags;

import org.springframework.integration.redis.util.RedisLockRegistry.RedisLockType;

/** The driver's command line (--command-timeout-ms is {@link Flags}'s). */
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

    private static final String USAGE = "--mode spin|pubsub [--command-timeout-ms N]";

    Mode mode = Mode.SPIN;
    /** Lettuce's commandTimeout: how long one command waits for its reply. */
    int commandTimeoutMs = Flags.DEFAULT_COMMAND_TIMEOUT_MS;

    static Options parse(String[] args) {
        Options o = new Options();
        o.commandTimeoutMs = Flags.parse(args, USAGE, (flag, v) -> {
            if (!flag.equals("--mode")) {
                return false;
            }
            o.mode = switch (v) {
                case "spin" -> Mode.SPIN;
                case "pubsub" -> Mode.PUBSUB;
                default -> throw new IllegalArgumentException("--mode " + v + ": want spin or pubsub");
            };
            return true;
        });
        return o;
    }
}
