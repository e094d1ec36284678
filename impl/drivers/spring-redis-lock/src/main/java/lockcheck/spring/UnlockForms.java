package lockcheck.spring;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.function.Supplier;

/**
 * The call forms of an unlock request (capability "forms", impl/driver/doc.go
 * "Call forms"): {@code unlock()}, the default, and {@code unlock()} made by
 * a thread whose interrupt status is set, as a task cancelled in its
 * section ({@code Future.cancel(true)}, an executor's shutdownNow) unlocks
 * in its finally block. RedisLock reads that status: 6.1.x and 7.0.0 to
 * 7.0.4 hand such an unlock's key removal to the registry's executor (7.0.4
 * returns before it ran), 7.0.5 waits for it uninterruptibly. The second
 * form is named {@value #INTERRUPTED}: the call is the same, the thread's
 * state is not. A request's "form_draw" picks form form_draw mod 2; without
 * one the driver makes {@code unlock()} and names no form. Lock and trylock
 * requests have one form (no "form" in their replies).
 */
final class UnlockForms {
    private UnlockForms() {
    }

    static final String PLAIN = "unlock()";
    static final String INTERRUPTED = "unlock-interrupted()";

    /**
     * Makes req's unlock (the call unlock) in its drawn form and names it in
     * the reply, an error reply too. The interrupt status set for the
     * interrupted form is cleared when the call returns, whatever the
     * library left of it.
     */
    static ObjectNode make(JsonNode req, Supplier<ObjectNode> unlock) {
        if (!req.has("form_draw")) {
            return unlock.get();
        }
        boolean interrupted = Long.remainderUnsigned(req.path("form_draw").asLong(0), 2) == 1;
        ObjectNode rep;
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        try {
            rep = unlock.get();
        } catch (RuntimeException e) {
            rep = Outcome.of(e);
        } finally {
            if (interrupted) {
                Thread.interrupted();
            }
        }
        return rep.put("form", interrupted ? INTERRUPTED : PLAIN);
    }
}
