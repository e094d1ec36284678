package lockcheck.redisson;

import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

/**
 * Redisson's RedissonMultiLock and RedissonRedLock over N RLocks
 * ({@code --lock multilock|redlock}, N from {@code --members}, default 3).
 * The request's lock name NAME names N member locks: NAME itself, then
 * NAME:m1 … NAME:m{N-1} (impl.MemberNames in lockcheck), so that a plain
 * RLock on NAME and the multilock NAME contend for one key.
 *
 * <p>All members are on the driver's one RedissonClient (Redisson's own
 * tests build them so; its documentation puts each on its own client for
 * the RedLock). Owner identity is the member locks': clientId:threadId.
 */
final class MultiLocks {
    /** The default of --members. */
    static final int DEFAULT_MEMBERS = 3;

    private MultiLocks() {
    }

    /** The names of the n members of the multilock name. */
    static String[] memberNames(String name, int n) {
        String[] out = new String[n];
        for (int i = 0; i < n; i++) {
            out[i] = i == 0 ? name : name + ":m" + i;
        }
        return out;
    }

    /** A new multilock (redlock: RedissonRedLock) on the members of name. */
    static RLock of(RedissonClient r, String name, int n, boolean redlock) {
        String[] names = memberNames(name, n);
        RLock[] members = new RLock[n];
        for (int i = 0; i < n; i++) {
            members[i] = r.getLock(names[i]);
        }
        return Compat.multiLock(members, redlock);
    }
}
