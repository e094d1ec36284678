// node-redisson alone: one renewal answered with an error ends the watchdog
// for good, for this hold and every later hold of the lock by this Redisson.
//
// Usage: node renewal-dies.js PORT [--control]
//
// lockWatchdogTimeout 1500 ms: a watchdog hold is renewed every 500 ms. From
// 0.2 s to 0.8 s after the grant Redis refuses the default user's scripts
// (ACL SETUSER default -evalsha -eval: the renewal at 0.5 s is answered
// NOPERM); then everything is allowed again. The holder never unlocks. At
// 3 s the lock should still be there. With the bug it is gone:
// RedissonBaseLock.renewExpiration catches the error, logs it and schedules
// no next renewal. --control skips the refusal: the lock must be there.
// Prints "REPRODUCED" when the lock is gone without --control, "HELD" when
// it is there; exit 0 when that is what the mode expects.
const { Redisson } = require('node-redisson');
const Redis = require('ioredis');
const version = require('node-redisson/package.json').version;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function main() {
  const port = Number(process.argv[2]);
  const control = process.argv.includes('--control');
  const redisson = new Redisson({ redis: { options: { port, host: '127.0.0.1' } }, lockWatchdogTimeout: 1500n });
  const admin = new Redis({ port, host: '127.0.0.1' });
  const lock = redisson.getLock('renewal-dies');
  await lock.lock();
  const granted = Date.now();
  if (!control) {
    await sleep(200);
    await admin.call('ACL', 'SETUSER', 'default', '-evalsha', '-eval');
    await sleep(600);
    await admin.call('ACL', 'SETUSER', 'default', '+@all');
  }
  await sleep(3000 - (Date.now() - granted));
  const held = (await admin.exists('renewal-dies')) === 1;
  console.log(`node-redisson ${version}: at 3 s the lock is ${held ? 'there' : 'gone'}: ${held ? 'HELD' : 'REPRODUCED'}`);
  admin.disconnect();
  redisson.redis.disconnect();
  redisson.commandExecutor.subscribeRedis.disconnect();
  process.exit(held === control ? 0 : 1);
}

main().catch((e) => {
  console.error(e);
  process.exit(2);
});
