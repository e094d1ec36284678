package lockcheck.redisson;

import lockcheck.driver.Flags;

import java.util.List;

/** The driver's command line (--command-timeout-ms is {@link Flags}'s). */
final class Options {
    /** Which of Redisson's locks the driver serves, and what it announces. */
    enum Kind {
        LOCK("redisson", List.of("reentrant", "watchdog", "holdcount", "cycle")),
        FAIR("redisson-fair", List.of("reentrant", "fair", "watchdog", "holdcount", "cycle")),
        FENCED("redisson-fenced", List.of("reentrant", "fenced", "watchdog", "holdcount", "cycle")),
        SPIN("redisson-spin", List.of("reentrant", "watchdog", "holdcount", "cycle")),
        /** RReadWriteLock: requests carry "mode" read or write (absent: write). */
        RWLOCK("redisson-rwlock", List.of("reentrant", "watchdog", "holdcount", "rwlock")),
        /** RedissonMultiLock over --members RLocks (MultiLocks): no hold count, no cycle. */
        MULTILOCK("redisson-multilock", List.of("reentrant", "watchdog")),
        /** RedissonRedLock over --members RLocks (MultiLocks). */
        REDLOCK("redisson-redlock", List.of("reentrant", "watchdog")),
        /** RSemaphore only (the sem_* requests, see {@link Semaphores}). */
        SEMAPHORE("redisson-semaphore", List.of("semaphore")),
        /** RPermitExpirableSemaphore only (the psem_* requests, see {@link PermitSemaphores}). */
        PERMIT_SEMAPHORE("redisson-permit-semaphore", List.of("permit-semaphore")),
        /** RCountDownLatch only (the latch_* requests, see {@link Latches}). */
        LATCH("redisson-latch", List.of("latch"));

        final String driver;
        final List<String> capabilities;

        Kind(String driver, List<String> capabilities) {
            this.driver = driver;
            this.capabilities = capabilities;
        }

        /** Whether the kind serves the lock requests (the permit objects serve none). */
        boolean locks() {
            return this != SEMAPHORE && this != PERMIT_SEMAPHORE && this != LATCH;
        }
    }

    private static final String USAGE = "--lock lock|fair|fenced|spin|rwlock|multilock|redlock|semaphore|permit-semaphore|latch [--members N] [--command-timeout-ms N] [--name-suffix S]";

    Kind kind = Kind.LOCK;
    /** Redisson's {@code timeout}: how long one command waits for its reply. */
    int commandTimeoutMs = Flags.DEFAULT_COMMAND_TIMEOUT_MS;
    /** How many member locks a multilock or redlock takes (--members, >= 1). */
    int members = MultiLocks.DEFAULT_MEMBERS;
    /** Appended to the banner's driver name (an older Redisson line: "-3.16"). */
    String suffix = "";

    String driverName() {
        return kind.driver + suffix;
    }

    static Options parse(String[] args) {
        Options o = new Options();
        o.commandTimeoutMs = Flags.parse(args, USAGE, (flag, v) -> switch (flag) {
            case "--lock" -> {
                o.kind = kind(v);
                yield true;
            }
            case "--members" -> {
                o.members = Integer.parseInt(v);
                if (o.members < 1) {
                    throw new IllegalArgumentException("--members " + v + ": want 1 or more");
                }
                yield true;
            }
            case "--name-suffix" -> {
                o.suffix = v;
                yield true;
            }
            default -> false;
        });
        return o;
    }

    private static Kind kind(String v) {
        return switch (v) {
            case "lock" -> Kind.LOCK;
            case "fair" -> Kind.FAIR;
            case "fenced" -> Kind.FENCED;
            case "spin" -> Kind.SPIN;
            case "rwlock" -> Kind.RWLOCK;
            case "multilock" -> Kind.MULTILOCK;
            case "redlock" -> Kind.REDLOCK;
            case "semaphore" -> Kind.SEMAPHORE;
            case "permit-semaphore" -> Kind.PERMIT_SEMAPHORE;
            case "latch" -> Kind.LATCH;
            default -> throw new IllegalArgumentException("--lock " + v + ": want lock, fair, fenced, spin, rwlock, multilock, redlock, semaphore, permit-semaphore or latch");
        };
    }
}
