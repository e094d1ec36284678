package lockcheck.spring;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;
import org.springframework.scheduling.TaskScheduler;

/**
 * The parts of Spring's API that differ between releases, for the releases
 * this source set is built against (src/compat/current: spring-integration-redis
 * 6.4.0 and later, over Spring Data Redis 3.4 and later; lockcheck picks the
 * set by version, catalog.springCompat). These have the library's own
 * renewal task (setRenewalTaskScheduler), the driver's watchdog, and a
 * connection factory that is a SmartLifecycle to start.
 */
final class Compat {
    /** Whether the library renews a registry's holds: the driver announces "watchdog". */
    static final boolean RENEWS = true;

    private Compat() {
    }

    /** Starts f (afterPropertiesSet was called). */
    static void start(LettuceConnectionFactory f) {
        f.start();
    }

    /** Has r renew its holds on s, every expireAfter / 3 (the library's period). */
    static void renewWith(RedisLockRegistry r, TaskScheduler s) {
        r.setRenewalTaskScheduler(s);
    }
}
