package org.redisson.config;

/**
 * lockcheck's driver on Redisson releases whose BaseConfig is not public:
 * its settings are set from inside its package (the driver runs on the
 * class path, where a package may span jars).
 */
public final class LockcheckConnection {
    private LockcheckConnection() {
    }

    /** Sets the password (if any), client name, timeouts and no retries. */
    public static void apply(Object servers, String password, String clientName, int connectTimeoutMs, int commandTimeoutMs) {
        BaseConfig<?> base = (BaseConfig<?>) servers;
        if (!password.isEmpty()) {
            base.setPassword(password);
        }
        base.setClientName(clientName)
                .setConnectTimeout(connectTimeoutMs)
                .setTimeout(commandTimeoutMs)
                .setRetryAttempts(0)
                .setRetryInterval(commandTimeoutMs);
    }
}
