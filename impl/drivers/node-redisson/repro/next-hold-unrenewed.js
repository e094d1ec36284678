// node-redisson alone: after a renewal lost with its connection (the
// watchdog ends there: renewal-dies-on-kill.js), the lock's next hold in
// the same client is never renewed, though nothing faults it. The renewal
// entry of the lost hold stays in RedissonBaseLock.EXPIRATION_RENEWAL_MAP:
// renewExpiration's catch neither reschedules nor removes it, and unlock()
// throws "not locked by current client" before cancelExpirationRenewal.
// The next lock() finds the entry there (scheduleExpirationRenewal adds
// its client id to it) and starts no renewal, so the hold runs out after
// one lease while its holder still works.
//
// Usage: node next-hold-unrenewed.js PORT [--control]
//
// The client is set up as lockcheck's driver sets it up (driver.js), as in
// renewal-dies-on-kill.js: lockWatchdogTimeout 1500 ms, a renewal every
// 500 ms. First hold: from 0.3 s to 0.8 s after the grant an admin
// connection kills every other client every 20 ms, so the renewal at 0.5 s
// meets a dead connection; at 3 s the hold has run out and its unlock
// fails. Second hold, on the same lock object, with no fault at all: at
// 3 s after its grant the lock should still be there. --control kills
// nothing (the first hold is then released normally). Prints "REPRODUCED"
// when the second hold is gone without --control, "HELD" when it is there;
// exit 0 when that is what the mode expects.
const { Redisson } = require('node-redisson');
const Redis = require('ioredis');
const version = require('node-redisson/package.json').version;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const key = 'next-hold-unrenewed';

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
  const ready = () => Promise.all(conns.map((c) => (c.status === 'ready' ? null : new Promise((r) => c.once('ready', r)))));
  await ready();
  const admin = new Redis({ port, host: '127.0.0.1' });
  const lock = redisson.getLock(key);
  await lock.lock();
  let granted = Date.now();
  if (!control) {
    await sleep(300);
    while (Date.now() - granted < 800) {
      await admin.call('CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes');
      await sleep(20);
    }
  }
  await sleep(3000 - (Date.now() - granted));
  await ready();
  const first = await lock.unlock().then(() => 'released', (e) => `refused (${e.message})`);
  await lock.lock();
  granted = Date.now();
  await sleep(3000);
  const held = (await admin.exists(key)) === 1;
  console.log(`node-redisson ${version}, first hold's renewal killed: ${control ? 'no' : 'yes'}; its unlock ${first}; ` +
    `the next hold, unfaulted, at 3 s: ${held ? 'there' : 'gone'}: ${held ? 'HELD' : 'REPRODUCED'}`);
  admin.disconnect();
  conns.forEach((c) => c.disconnect());
  process.exit(held === control ? 0 : 1);
}

main().catch((e) => {
  console.error(e);
  process.exit(2);
});
