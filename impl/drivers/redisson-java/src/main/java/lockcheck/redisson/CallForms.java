package lockcheck.redisson;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import lockcheck.driver.DeadlineInterrupt;
import lockcheck.driver.Replies;

import org.redisson.api.RLock;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The call forms of a lock request (capability "forms"): the equivalent
 * ways RLock offers to make it, each a path of its own through Redisson
 * (RedissonMultiLock 3.25.0 passed lock(lease, unit)'s lease on unconverted;
 * 3.11.0 read tryLock's wait of -1 into the members' leases). The forms that
 * fit the request's wait and lease are listed in a fixed order, the
 * driver's default first, and the request's "form_draw" picks form
 * form_draw mod their number (0 or absent: the default); the reply names
 * the form made. A thread-bound call is made on the owner's thread, the
 * request's deadline interrupting it: fail, as for lockInterruptibly.
 */
final class CallForms {
    private CallForms() {}

    /** A call that answers the request. */
    interface Call {
        ObjectNode make() throws Exception;
    }

    /** A thread-bound acquire: true when granted. */
    interface Acquire {
        boolean make() throws InterruptedException;
    }

    /** One form: its name in Redisson's terms and its call. */
    record Form(String name, Call call) {}

    /**
     * Makes the form of forms that req draws and names it in the reply, an
     * error reply (the call threw) too.
     */
    static ObjectNode make(JsonNode req, List<Form> forms) {
        long draw = req.path("form_draw").asLong(0);
        Form f = forms.get((int) Long.remainderUnsigned(draw, forms.size()));
        ObjectNode rep;
        try {
            rep = f.call().make();
        } catch (Exception e) {
            rep = Outcome.of(e);
        }
        return rep.put("form", f.name());
    }

    /**
     * The lock request's forms after the default: lockInterruptibly in
     * milliseconds, in whole seconds, in microseconds, and with no lease
     * for a watchdog hold.
     */
    static List<Form> lock(RLock l, long lease, long deadline, Call byDefault) {
        List<Form> forms = new ArrayList<>();
        forms.add(new Form("lockAsync(" + lease + ", MILLISECONDS, threadId)", byDefault));
        forms.add(bound(l, deadline, "lockInterruptibly(" + lease + ", MILLISECONDS)", () -> grant(() -> l.lockInterruptibly(lease, TimeUnit.MILLISECONDS))));
        if (lease > 0 && lease % 1000 == 0) {
            forms.add(bound(l, deadline, "lockInterruptibly(" + lease / 1000 + ", SECONDS)", () -> grant(() -> l.lockInterruptibly(lease / 1000, TimeUnit.SECONDS))));
        }
        if (lease > 0) {
            forms.add(bound(l, deadline, "lockInterruptibly(" + lease * 1000 + ", MICROSECONDS)", () -> grant(() -> l.lockInterruptibly(lease * 1000, TimeUnit.MICROSECONDS))));
        } else {
            forms.add(bound(l, deadline, "lockInterruptibly()", () -> grant(l::lockInterruptibly)));
        }
        return forms;
    }

    /**
     * The trylock request's forms after the default: tryLock in
     * milliseconds, in whole seconds, in microseconds, with the no-wait
     * sentinel -1 for a wait of 0, and the overloads without a lease for a
     * watchdog hold (tryLock(wait, unit), and tryLock() for no wait).
     */
    static List<Form> tryLock(RLock l, long wait, long lease, long deadline, Call byDefault) {
        List<Form> forms = new ArrayList<>();
        forms.add(new Form("tryLockAsync(" + wait + ", " + lease + ", MILLISECONDS, threadId)", byDefault));
        forms.add(tryForm(l, deadline, wait, lease, TimeUnit.MILLISECONDS));
        if (wait % 1000 == 0 && (lease < 0 || lease % 1000 == 0)) {
            forms.add(tryForm(l, deadline, wait / 1000, lease < 0 ? lease : lease / 1000, TimeUnit.SECONDS));
        }
        forms.add(tryForm(l, deadline, wait * 1000, lease < 0 ? lease : lease * 1000, TimeUnit.MICROSECONDS));
        if (wait == 0) {
            forms.add(tryForm(l, deadline, -1, lease, TimeUnit.MILLISECONDS));
        }
        if (lease < 0) {
            forms.add(bound(l, deadline, "tryLock(" + wait + ", MILLISECONDS)", () -> l.tryLock(wait, TimeUnit.MILLISECONDS)));
            if (wait == 0) {
                forms.add(bound(l, deadline, "tryLock()", l::tryLock));
            }
        }
        return forms;
    }

    /** The unlock request's forms after the default: unlock() on the owner's thread. */
    static List<Form> unlock(RLock l, Call byDefault) {
        return List.of(new Form("unlockAsync(threadId)", byDefault), new Form("unlock()", () -> {
            try {
                l.unlock();
                return Replies.ok();
            } catch (IllegalMonitorStateException e) {
                return Replies.fail();
            }
        }));
    }

    private static Form tryForm(RLock l, long deadline, long wait, long lease, TimeUnit unit) {
        return bound(l, deadline, "tryLock(" + wait + ", " + lease + ", " + unit + ")", () -> l.tryLock(wait, lease, unit));
    }

    /** A void acquire, which returns only once granted. */
    interface Blocking {
        void make() throws InterruptedException;
    }

    private static boolean grant(Blocking b) throws InterruptedException {
        b.make();
        return true;
    }

    /** The thread-bound acquire a, bounded by the request's deadline. */
    private static Form bound(RLock l, long deadline, String name, Acquire a) {
        return new Form(name, () -> {
            try (DeadlineInterrupt d = new DeadlineInterrupt(deadline)) {
                try {
                    return Locks.enqueued(l, a.make() ? Replies.ok() : Replies.fail());
                } catch (InterruptedException e) {
                    return Locks.interruptedFail(d);
                }
            }
        });
    }
}
