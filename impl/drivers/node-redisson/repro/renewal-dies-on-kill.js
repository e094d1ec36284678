// node-redisson alone: a renewal lost with its connection ends the watchdog
// for good, as one answered with an error does (renewal-dies.js): the
// same catch in RedissonBaseLock.renewExpiration, reached through a
// dropped connection instead of an error reply.
//
// Usage: node renewal-dies-on-kill.js PORT [--control]
//
// The client is set up as lockcheck's driver sets it up (driver.js):
// ioredis with maxRetriesPerRequest 0, no offline queue and no resending of
// unfulfilled commands, so a command on a dead connection fails at once
// instead of waiting; lockWatchdogTimeout 1500 ms, a renewal every 500 ms.
// From 0.3 s to 0.8 s after the grant an admin connection kills every other
// client of Redis (CLIENT KILL TYPE normal SKIPME yes) every 20 ms, so the
// renewal at 0.5 s meets a dead connection; then nothing is killed again,
// and the client reconnects (retryStrategy 50 ms). The holder never
// unlocks. At 3 s the lock should still be there. --control kills nothing.
// Prints "REPRODUCED" when the lock is gone without --control, "HELD" when
// it is there; exit 0 when that is what the mode expects.
const { Redisson } = require('node-redisson');
const Redis = require('ioredis');
const version = require('node-redisson/package.json').version;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function main() {
  const port = Number(process.argv[2]);
  const control = process.argv.includes('--control');
  const options = {
    port, host: '127.0.0.1', maxRetriesPerRequest: 0, enableOfflineQueue: false,
    autoResendUnfulfilledCommands: false, retryStrategy: () => 50,
  };
  const redisson = new Redisson({ redis: { options }, lockWatchdogTimeout: 1500n });
  const conns = [redisson.redis, redisson.commandExecutor.subscribeRedis];
  conns.forEach((c) => c.on('error', () => {}));
  // No offline queue: a command before the connection is up fails.
  await Promise.all(conns.map((c) => (c.status === 'ready' ? null : new Promise((r) => c.once('ready', r)))));
  const admin = new Redis({ port, host: '127.0.0.1' });
  const lock = redisson.getLock('renewal-dies-on-kill');
  await lock.lock();
  const granted = Date.now();
  if (!control) {
    await sleep(300);
    while (Date.now() - granted < 800) {
      await admin.call('CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes');
      await sleep(20);
    }
  }
  await sleep(3000 - (Date.now() - granted));
  const held = (await admin.exists('renewal-dies-on-kill')) === 1;
  console.log(`node-redisson ${version}, connection killed at its renewal: at 3 s the lock is ${held ? 'there' : 'gone'}: ${held ? 'HELD' : 'REPRODUCED'}`);
  admin.disconnect();
  redisson.redis.disconnect();
  redisson.commandExecutor.subscribeRedis.disconnect();
  process.exit(held === control ? 0 : 1);
}

main().catch((e) => {
  console.error(e);
  process.exit(2);
});
