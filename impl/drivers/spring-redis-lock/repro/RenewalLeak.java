import java.time.Duration;
import java.util.concurrent.locks.Lock;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * RedisLockRegistry (spring-integration-redis 6.5.5) with a renewal
 * scheduler, the library alone: every acquire schedules a renewal task and
 * stores it in one field, so a reentrant acquire overwrites the task of the
 * first acquire without cancelling it, and the final unlock cancels only the
 * last one. The others renew forever (a renewal that finds the key gone
 * cancels the task in the field, not itself).
 *
 * Usage: java -cp ../target/lib/*:. RenewalLeak PORT REENTRIES
 * Prints the EVALSHA calls Redis saw in 2 s after every hold was released:
 * 0 expected; about 2 x REENTRIES x 2 s / (expireAfter / 3) observed.
 */
public class RenewalLeak {
    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        int reentries = Integer.parseInt(args[1]);
        LettuceConnectionFactory f = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", port));
        f.afterPropertiesSet();
        f.start();
        ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
        scheduler.initialize();
        RedisLockRegistry registry = new RedisLockRegistry(f, "repro", 1500); // renew every 500 ms
        registry.setRenewalTaskScheduler(scheduler);
        Lock lock = registry.obtain("leak");
        for (int i = 0; i < reentries; i++) {
            lock.lock();
            lock.lock(); // reentry: a second renewal task replaces the first in the field
            lock.unlock();
            lock.unlock(); // final unlock: DEL, then cancels the second task only
        }
        try (RedisConnection c = f.getConnection()) {
            System.out.println("key after the last unlock: " + c.keyCommands().exists("repro:leak".getBytes()));
            c.serverCommands().resetConfigStats();
            Thread.sleep(2000);
            String stats = c.serverCommands().info("commandstats").getProperty("cmdstat_evalsha", "calls=0");
            System.out.println("no hold for 2 s, " + reentries + " reentries before: EVALSHA " + stats);
        }
        scheduler.shutdown();
        registry.destroy();
        f.destroy();
    }
}
