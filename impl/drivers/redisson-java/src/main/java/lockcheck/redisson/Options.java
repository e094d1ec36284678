package lockcheck.redisson;

import java.util.List;

/** The driver's command line. */
final class Options {
    /** Which of Redisson's locks the driver serves, and what it announces. */
    enum Kind {
        LOCK("redisson", List.of("reentrant", "watchdog", "holdcount", "cycle")),
        FAIR("redisson-fair", List.of("reentrant", "fair", "watchdog", "holdcount", "cycle")),
        FENCED("redisson-fenced", List.of("reentrant", "fenced", "watchdog", "holdcount", "cycle")),
        SPIN("redisson-spin", List.of("reentrant", "watchdog", "holdcount", "cycle"));

        final String driver;
        final List<String> capabilities;

        Kind(String driver, List<String> capabilities) {
            this.driver = driver;
            this.capabilities = capabilities;
        }
    }

    /** Redisson's response timeout when --command-timeout-ms is not given. */
    static final int DEFAULT_COMMAND_TIMEOUT_MS = 1000;

    Kind kind = Kind.LOCK;
    /** Redisson's {@code timeout}: how long one command waits for its reply. */
    int commandTimeoutMs = DEFAULT_COMMAND_TIMEOUT_MS;
    /** Appended to the banner's driver name (an older Redisson line: "-3.16"). */
    String suffix = "";

    String driverName() {
        return kind.driver + suffix;
    }

    static Options parse(String[] args) {
        Options o = new Options();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("flag " + a + " needs a value");
            }
            String v = args[++i];
            switch (a) {
                case "--lock" -> o.kind = switch (v) {
                    case "lock" -> Kind.LOCK;
                    case "fair" -> Kind.FAIR;
                    case "fenced" -> Kind.FENCED;
                    case "spin" -> Kind.SPIN;
                    default -> throw new IllegalArgumentException("--lock " + v + ": want lock, fair, fenced or spin");
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
                case "--name-suffix" -> o.suffix = v;
                default -> throw new IllegalArgumentException("unknown flag " + a
                        + " (usage: --lock lock|fair|fenced|spin [--command-timeout-ms N] [--name-suffix S])");
            }
        }
        return o;
    }
}
