package lockcheck.spring;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;
import org.springframework.scheduling.TaskScheduler;

/**
 * The parts of Spring's API that differ between releases, for the releases
 * this source set is built against (src/compat/legacy: spring-integration-redis
 * 6.0.0 to 6.3.x, over Spring Data Redis 3.0 to 3.3; lockcheck picks the set
 * by version, catalog.springCompat). Their RedisLockRegistry has no renewal
 * task: a hold lasts its registry's expireAfter, so the driver does not
 * announce "watchdog" and lockcheck gives every acquire a lease. Their
 * connection factory starts in afterPropertiesSet (Spring Data Redis 3.0
 * and 3.1 have no start(); 3.2 and 3.3 start there, "early startup").
 */
final class Compat {
    /** Whether the library renews a registry's holds: not before 6.4.0. */
    static final boolean RENEWS = false;

    private Compat() {
    }

    /** Nothing: afterPropertiesSet started f. */
    static void start(LettuceConnectionFactory f) {
    }

    /** Fails: these releases cannot renew a hold. */
    static void renewWith(RedisLockRegistry r, TaskScheduler s) {
        throw new UnsupportedOperationException("spring-integration-redis " + Driver.libraryVersion()
                + " has no renewal task (setRenewalTaskScheduler came in 6.4.0)");
    }
}
