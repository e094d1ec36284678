package lockcheck.driver;

/** A driver's log: one line on stderr per message, after the driver's name (stdout is the protocol's). */
public final class Log {
    private final String prefix;

    /** A log whose lines start with "name: ". */
    public Log(String name) {
        this.prefix = name + ": ";
    }

    /** Writes msg as one line on stderr. */
    public void print(String msg) {
        System.err.println(prefix + msg);
    }
}
