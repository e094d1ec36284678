package lockcheck.redisson;

/**
 * The connection settings of every topology's servers config (Redisson's
 * BaseConfig), applied by {@link Compat#connection}: Redisson's
 * {@code timeout} and subscription timeout are commandTimeoutMs, retries
 * are off.
 */
record Connection(String user, String password, String clientName, int connectTimeoutMs, int commandTimeoutMs) {
}
