#!/usr/bin/env node
// Self-test of the node-redlock driver against a real redis-server (the
// harness in ../selftest-harness.js starts its own); ends with "N passed, N
// failed" (exit 1 if any failed).
//
//   node impl/drivers/node-redlock/selftest.js
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
    check(`${d.name}: banner`, /^\{"protocol":1,"driver":"node-redlock","version":"4\.2\.0","capabilities":\[\]\}$/.test(banner), banner);
  }
  await expect(a, 'lock before hello', { op: 'lock', name: L, lease_ms: 0, timeout_ms: 1000 }, 'error');
  await expect(a, 'hello', hello(port, { client: 'a' }), 'ok');
  await expect(b, 'hello', hello(port, { client: 'b' }), 'ok');
  await expect(a, 'unknown op', { op: 'frobnicate', timeout_ms: 1000 }, 'error');

  // Mutual exclusion, ownership, no reentry.
  await expect(a, 'lock lease 5000 ms', { op: 'lock', name: L, lease_ms: 5000, timeout_ms: 2000 }, 'ok');
  check('a string key with a random value', (await rc.type(L)) === 'string');
  await expect(b, 'trylock while a holds', { op: 'trylock', name: L, wait_ms: 300, lease_ms: 2000, timeout_ms: 2000 }, 'fail', 250, 800);
  await expect(b, 'trylock wait 0 while a holds', { op: 'trylock', name: L, wait_ms: 0, lease_ms: 2000, timeout_ms: 2000 }, 'fail', 0, 200);
  await expect(b, 'unlock of a\'s lock (never held)', { op: 'unlock', name: L, timeout_ms: 2000 }, 'fail');
  await expect(a, 'lock again: not reentrant, gives up before timeout_ms', { op: 'lock', name: L, lease_ms: 5000, timeout_ms: 600 }, 'fail', 400, 650);
  await expect(a, 'unlock', { op: 'unlock', name: L, timeout_ms: 2000 }, 'ok');
  check('key gone after unlock', (await rc.exists(L)) === 0);
  await expect(a, 'unlock again', { op: 'unlock', name: L, timeout_ms: 2000 }, 'fail');

  // Leases, expiry, waiting.
  await expect(b, 'trylock lease 1001 ms', { op: 'trylock', name: L, wait_ms: 0, lease_ms: 1001, timeout_ms: 2000 }, 'ok');
  const leased = await rc.pttl(L);
  check(`lease is lease_ms (pttl ${leased})`, leased > 900 && leased <= 1001, leased);
  await expect(b, 'unlock', { op: 'unlock', name: L, timeout_ms: 2000 }, 'ok');
  await expect(a, 'lock lease 0', { op: 'lock', name: L, lease_ms: 0, timeout_ms: 2000 }, 'ok');
  const plain = await rc.pttl(L);
  check(`lease 0 is a plain lease of watchdog_ms (pttl ${plain})`, plain > WATCHDOG_MS - 100 && plain <= WATCHDOG_MS, plain);
  await expect(b, 'lock waits for a\'s lease to run out', { op: 'lock', name: L, lease_ms: 5000, timeout_ms: 3000 }, 'ok', WATCHDOG_MS - 200, WATCHDOG_MS + 300);
  await expect(a, 'unlock after its lease ran out (b holds)', { op: 'unlock', name: L, timeout_ms: 2000 }, 'fail');
  check('a\'s failed unlock left b\'s key', (await rc.exists(L)) === 1);
  const waiting = a.rq({ op: 'lock', name: L, lease_ms: 5000, timeout_ms: 5000 });
  await sleep(300);
  await expect(b, 'unlock while a waits', { op: 'unlock', name: L, timeout_ms: 2000 }, 'ok');
  const got = await waiting;
  check(`a's blocked lock granted by its retries after b's unlock (${got.ms} ms)`, got.reply.status === 'ok' && got.ms < 800, JSON.stringify(got.reply));
  await expect(a, 'unlock', { op: 'unlock', name: L, timeout_ms: 2000 }, 'ok');
  await expect(a, 'lock lease 200 ms', { op: 'lock', name: L, lease_ms: 200, timeout_ms: 2000 }, 'ok');
  await sleep(400);
  await expect(a, 'unlock after its lease ran out (free)', { op: 'unlock', name: L, timeout_ms: 2000 }, 'fail');

  // Redis error replies.
  const H = 'selftest:hash';
  await expect(a, 'lock ' + H, { op: 'lock', name: H, lease_ms: 10000, timeout_ms: 2000 }, 'ok');
  await rc.del(H);
  await rc.hset(H, 'f', 'v');
  const e1 = await expect(a, 'unlock when the key became a hash', { op: 'unlock', name: H, timeout_ms: 2000 }, 'error');
  check('... WRONGTYPE with redis_error', e1.redis_error === true && /WRONGTYPE/.test(e1.error), JSON.stringify(e1));
  await expect(b, 'trylock on a hash key (the key exists)', { op: 'trylock', name: H, wait_ms: 0, lease_ms: 1000, timeout_ms: 2000 }, 'fail');

  // A hello that cannot connect.
  const c = new Driver('c');
  drivers.push(c);
  await c.next();
  await expect(c, 'hello to a closed port', hello(await freePort(), { timeout_ms: 700 }), 'error', 0, 1200);

  // End of input: exit 0 without unlocking.
  await expect(a, 'lock before EOF', { op: 'lock', name: L, lease_ms: 10000, timeout_ms: 2000 }, 'ok');
  for (const d of drivers) {
    d.proc.stdin.end();
    const code = await d.exited;
    check(`${d.name}: exits 0 on EOF`, code === 0, code);
  }
  check('EOF left a\'s hold in place', (await rc.exists(L)) === 1);
});
