package lockcheck.driver;

/**
 * A driver's command line: pairs of {@code --flag value}. The protocol's own
 * flag is {@code --command-timeout-ms N} (how long one command waits for its
 * reply in the library's client); every other flag is the driver's.
 */
public final class Flags {
    /** The command timeout when --command-timeout-ms is not given. */
    public static final int DEFAULT_COMMAND_TIMEOUT_MS = 1000;

    /** A driver's own flags. */
    public interface Own {
        /**
         * Takes flag's value and returns true, or returns false when flag is
         * not one of the driver's; a bad value is an IllegalArgumentException
         * naming the flag and what it wants.
         */
        boolean set(String flag, String value);
    }

    private Flags() {
    }

    /**
     * Parses args and returns --command-timeout-ms (DEFAULT_COMMAND_TIMEOUT_MS
     * when absent). A flag without a value, a timeout that is no number or
     * not positive, and a flag neither this nor own knows (its message ends
     * with "(usage: " + usage + ")") are IllegalArgumentExceptions.
     */
    public static int parse(String[] args, String usage, Own own) {
        int commandTimeoutMs = DEFAULT_COMMAND_TIMEOUT_MS;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("flag " + a + " needs a value");
            }
            String v = args[++i];
            if (a.equals("--command-timeout-ms")) {
                commandTimeoutMs = commandTimeout(v);
            } else if (!own.set(a, v)) {
                throw new IllegalArgumentException("unknown flag " + a + " (usage: " + usage + ")");
            }
        }
        return commandTimeoutMs;
    }

    private static int commandTimeout(String v) {
        int ms;
        try {
            ms = Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--command-timeout-ms " + v + ": not a number");
        }
        if (ms <= 0) {
            throw new IllegalArgumentException("--command-timeout-ms " + v + ": want > 0");
        }
        return ms;
    }
}
