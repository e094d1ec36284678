#!/usr/bin/env node
// Self-test of the node-redisson driver against a real redis-server (the
// harness in ../selftest-harness.js starts its own); ends with "N passed, N
// failed" (exit 1 if any failed).
//
//   node impl/drivers/node-redisson/selftest.js
'use strict';

const path = require('path');
const Redis = require('ioredis');
const { WATCHDOG_MS, Driver, check, expect, freePort, hello, run, sleep } = require('../selftest-harness.js');

const L = 'selftest:l0';

run(path.join(__dirname, 'driver.js'), Redis, async ({ port, rc, drivers }) => {
  const a = new Driver('a');
  const b = new Driver('b');
  drivers.push(a, b);
  for (const d of [a, b]) {
    const banner = await d.next();
    check(`${d.name}: banner`, /^\{"protocol":2,"driver":"node-redisson","version":"1\.0\.4","capabilities":\["reentrant","watchdog","owners"\]\}$/.test(banner), banner);
  }
  await expect(a, 'lock before hello', { op: 'lock', name: L, lease_ms: 0, timeout_ms: 1000 }, 'error');
  await expect(a, 'hello', hello(port, { client: 'a' }), 'ok');
  await expect(b, 'hello', hello(port, { client: 'b' }), 'ok');
  await expect(a, 'unknown op', { op: 'frobnicate', timeout_ms: 1000 }, 'error');

  // Reentry, ownership, watchdog.
  await expect(a, 'lock (watchdog)', { op: 'lock', name: L, lease_ms: 0, timeout_ms: 2000 }, 'ok');
  await expect(a, 'lock again (reentry)', { op: 'trylock', name: L, wait_ms: 0, lease_ms: 0, timeout_ms: 2000 }, 'ok');
  const h = await rc.hgetall(L);
  const fields = Object.keys(h);
  check('one owner field, two holds', fields.length === 1 && h[fields[0]] === '2' && /:a$/.test(fields[0]), JSON.stringify(h));
  await expect(b, 'trylock while a holds', { op: 'trylock', name: L, wait_ms: 300, lease_ms: 2000, timeout_ms: 2000 }, 'fail', 0, 800);
  await expect(b, 'unlock of a\'s lock', { op: 'unlock', name: L, timeout_ms: 2000 }, 'fail');
  check('a\'s lock survives b\'s unlock', (await rc.hget(L, fields[0])) === '2');
  await sleep(3 * WATCHDOG_MS);
  const pttl = await rc.pttl(L);
  check(`watchdog keeps the hold past 3x watchdog_ms (pttl ${pttl})`, pttl > 0 && pttl <= WATCHDOG_MS, pttl);
  await expect(a, 'unlock (one of two holds)', { op: 'unlock', name: L, timeout_ms: 2000 }, 'ok');
  check('one hold left', (await rc.hget(L, fields[0])) === '1');
  await expect(a, 'unlock (last hold)', { op: 'unlock', name: L, timeout_ms: 2000 }, 'ok');
  check('key gone after the last unlock', (await rc.exists(L)) === 0);
  await expect(a, 'unlock again', { op: 'unlock', name: L, timeout_ms: 2000 }, 'fail');

  // Leases, waiting, the unlock message.
  await expect(b, 'trylock lease 1001 ms', { op: 'trylock', name: L, wait_ms: 0, lease_ms: 1001, timeout_ms: 2000 }, 'ok');
  const leased = await rc.pttl(L);
  check(`lease is lease_ms (pttl ${leased})`, leased > 900 && leased <= 1001, leased);
  await expect(b, 'unlock', { op: 'unlock', name: L, timeout_ms: 2000 }, 'ok');
  await expect(b, 'lock lease 5000 ms', { op: 'lock', name: L, lease_ms: 5000, timeout_ms: 2000 }, 'ok');
  const waiting = a.rq({ op: 'lock', name: L, lease_ms: 5000, timeout_ms: 5000 });
  await sleep(300);
  await expect(b, 'unlock while a waits', { op: 'unlock', name: L, timeout_ms: 2000 }, 'ok');
  const woke = await waiting;
  check(`a's blocked lock granted on b's unlock message (${woke.ms} ms)`, woke.reply.status === 'ok' && woke.ms < 1500, JSON.stringify(woke.reply));
  await expect(a, 'unlock', { op: 'unlock', name: L, timeout_ms: 2000 }, 'ok');
  await expect(a, 'lock lease 300 ms', { op: 'lock', name: L, lease_ms: 300, timeout_ms: 2000 }, 'ok');
  await expect(b, 'lock waits for a\'s lease to run out', { op: 'lock', name: L, lease_ms: 0, timeout_ms: 3000 }, 'ok', 150, 1500);
  await expect(a, 'unlock after its lease ran out', { op: 'unlock', name: L, timeout_ms: 2000 }, 'fail');
  await expect(b, 'unlock', { op: 'unlock', name: L, timeout_ms: 2000 }, 'ok');

  // Redis error replies.
  await rc.set('selftest:str', 'x');
  const e1 = await expect(a, 'lock on a string key', { op: 'lock', name: 'selftest:str', lease_ms: 0, timeout_ms: 2000 }, 'error');
  check('... WRONGTYPE with redis_error', e1.redis_error === true && /WRONGTYPE/.test(e1.error), JSON.stringify(e1));
  const e2 = await expect(a, 'unlock of a string key', { op: 'unlock', name: 'selftest:str', timeout_ms: 2000 }, 'error');
  check('... WRONGTYPE with redis_error', e2.redis_error === true, JSON.stringify(e2));

  // Two owners of one process (protocol 2): p2's lock waits while p1 holds
  // and is granted by p1's unlock, sent after it; each owner has its clientId.
  const o = new Driver('o');
  drivers.push(o);
  await o.next();
  await expect(o, 'owners hello', hello(port, { client: 'o', protocol: 2, owners: 2 }), 'ok');
  const O = L + ':owners';
  await expect(o, 'p1 lock', { op: 'lock', name: O, owner: 'p1', lease_ms: 0, timeout_ms: 2000 }, 'ok');
  await expect(o, 'p2 trylock while p1 holds', { op: 'trylock', name: O, owner: 'p2', wait_ms: 0, lease_ms: 0, timeout_ms: 2000 }, 'fail');
  const lockID = ++o.id;
  o.proc.stdin.write(JSON.stringify({ id: lockID, op: 'lock', name: O, owner: 'p2', lease_ms: 0, timeout_ms: 3000 }) + '\n');
  const unlockID = ++o.id;
  o.proc.stdin.write(JSON.stringify({ id: unlockID, op: 'unlock', name: O, owner: 'p1', timeout_ms: 3000 }) + '\n');
  const order = [JSON.parse(await o.next()), JSON.parse(await o.next())].map((r) => `${r.id}:${r.status}`);
  // Each reply is routed by its id; which comes first is the event loop's
  // (p2's grant may be written before p1's unlock reply).
  check('o: p2\'s lock and p1\'s unlock both answered ok, by id', [...order].sort().join(',') === [`${lockID}:ok`, `${unlockID}:ok`].sort().join(','), order.join(','));
  const oh = Object.keys(await rc.hgetall(O));
  check('o: p2 holds as its own clientId', oh.length === 1 && /:p2$/.test(oh[0]), JSON.stringify(oh));
  await expect(o, 'p2 unlock', { op: 'unlock', name: O, owner: 'p2', timeout_ms: 2000 }, 'ok');

  // A hello that cannot connect.
  const c = new Driver('c');
  drivers.push(c);
  await c.next();
  await expect(c, 'hello to a closed port', hello(await freePort(), { timeout_ms: 700 }), 'error', 0, 1200);

  // End of input: exit 0 without unlocking.
  await expect(a, 'lock before EOF', { op: 'lock', name: L, lease_ms: 0, timeout_ms: 2000 }, 'ok');
  for (const d of drivers) {
    d.proc.stdin.end();
    const code = await d.exited;
    check(`${d.name}: exits 0 on EOF`, code === 0, code);
  }
  check('EOF left a\'s hold in place', (await rc.exists(L)) === 1);
});
