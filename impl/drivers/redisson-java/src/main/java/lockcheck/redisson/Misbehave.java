package lockcheck.redisson;

import lockcheck.driver.Library;

import java.io.PrintStream;

/**
 * A fault for lockcheck's own tests of how it treats a broken driver:
 * LOCKCHECK_DRIVER_MISBEHAVE=hang@N, crash@N or garbage@N makes the driver,
 * from its N-th request on, stop answering (it keeps running), die (SIGKILL-
 * like halt) or print a line that is no reply. Unset, the driver behaves.
 */
final class Misbehave implements Library.LineHook {
    final String what;
    final long after;

    private Misbehave(String what, long after) {
        this.what = what;
        this.after = after;
    }

    static Misbehave fromEnv() {
        String v = System.getenv("LOCKCHECK_DRIVER_MISBEHAVE");
        if (v == null || v.isEmpty()) {
            return null;
        }
        int at = v.indexOf('@');
        if (at < 0) {
            throw new IllegalArgumentException("LOCKCHECK_DRIVER_MISBEHAVE=" + v + ": want hang@N, crash@N or garbage@N");
        }
        String what = v.substring(0, at);
        if (!what.equals("hang") && !what.equals("crash") && !what.equals("garbage")) {
            throw new IllegalArgumentException("LOCKCHECK_DRIVER_MISBEHAVE=" + v + ": want hang@N, crash@N or garbage@N");
        }
        return new Misbehave(what, Long.parseLong(v.substring(at + 1)));
    }

    /** From the after-th request line on, acts before serving it. */
    @Override
    public void line(PrintStream out, long n) {
        if (n >= after) {
            act(out);
        }
    }

    /** Acts instead of serving the request at hand. */
    private void act(PrintStream out) {
        Driver.log("misbehaving as asked (LOCKCHECK_DRIVER_MISBEHAVE): " + what);
        switch (what) {
            case "crash" -> Runtime.getRuntime().halt(137);
            case "garbage" -> {
                out.print("this is no reply\n");
                out.flush();
            }
            default -> {
                while (true) {
                    try {
                        Thread.sleep(Long.MAX_VALUE);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
            }
        }
    }
}
