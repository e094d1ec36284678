#!/usr/bin/env node
// probe-wakeup: node-redisson alone, no lockcheck. Does an unlock wake a
// waiter of another Redisson instance (another service, another process),
// or does that waiter wait out the holder's TTL? Starts its own
// redis-server on a free port; prints each waiter's wait and the TTL.
// Measured 2026-11-24: 12 of 12 waiters woken within 241 ms, so plain
// hand-offs do wake other instances; the 1.5 s waits on a free lock seen in
// lockcheck's hunt runs (a full watchdog TTL) come from a case this probe
// does not reproduce yet.
//
//   node impl/drivers/node-redisson/probe-wakeup.js
'use strict';

const { spawn } = require('child_process');
const net = require('net');
const { Redisson } = require('node-redisson');

const TTL_MS = 3000;
const ROUNDS = Number(process.env.ROUNDS || 12);

function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function waitFor(lockHolder, waiter, name) {
  const held = lockHolder.getLock(name, 'holder');
  await held.lock();
  const start = Date.now();
  const waiting = waiter.getLock(name, 'waiter').lock().then(() => Date.now() - start);
  await sleep(200);
  await held.unlock();
  const ms = await waiting;
  await waiter.getLock(name, 'waiter').unlock();
  return ms;
}

(async () => {
  const port = await freePort();
  const server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  await sleep(300);
  const opts = { redis: { options: { host: '127.0.0.1', port } }, lockWatchdogTimeout: BigInt(TTL_MS) };
  const a = new Redisson(opts);
  const b = new Redisson(opts);
  try {
    console.log(`each round: the holder unlocks after 200 ms; watchdog TTL ${TTL_MS} ms`);
    const waits = [];
    for (let round = 0; round < ROUNDS; round++) {
      const [holder, waiter] = round % 2 ? [a, b] : [b, a];
      waits.push(await waitFor(holder, waiter, 'probe:l'));
      await sleep(round % 3 === 0 ? 0 : 50 * (round % 5));
    }
    const missed = waits.filter((w) => w >= TTL_MS / 2);
    console.log(`waits (ms): ${waits.join(' ')}`);
    console.log(`${missed.length} of ${waits.length} waiters were not woken by the unlock message and waited out the TTL`);
  } finally {
    server.kill();
  }
  process.exit(0); // node-redisson's own unsubscribe timers would outlive the server
})().catch((e) => { console.error(e); process.exit(1); });
