#!/usr/bin/env node
// lockcheck driver, protocol 1 (see impl/driver/doc.go), for the npm package
// redlock 3 or 4 (the same API: acquire, release, clientError) on a single
// Redis node (quorum 1 of 1) over ioredis. Their lock is a string key <name>
// set with "SET <name> <random value> PX <ttl>" when no such key exists,
// released by a compare-and-delete script; one Lock object (resource, value)
// per grant.
//
//   hello    one ioredis client, ok when ready within timeout_ms
//   lock     single-attempt redlock.acquire(name, ttl) retried every 10-60 ms
//            (seeded) until granted, or fail once timeout_ms is about to run
//            out (a refused acquire leaves nothing behind)
//   trylock  the same loop, bounded by wait_ms
//            ttl = lease_ms, or watchdog_ms when lease_ms <= 0: redlock has no
//            watchdog, so that is a plain lease
//   unlock   redlock.release(the Lock of this driver's last grant) -> ok; its
//            LockError "Unable to fully release the lock" (the key is gone or
//            holds another value: expired, taken over) -> fail; no Lock kept
//            for the name (never granted, already released) -> fail without
//            asking Redis
//
// redlock swallows Redis errors into its LockError and reports them only on
// its "clientError" event, so the driver listens to it during each op: a
// connection error while the acquire or release script was in flight makes
// the outcome unknown (error); an error reply from Redis (WRONGTYPE, ...) to
// that script is error with redis_error: true. The error reply of the cleanup
// release that redlock runs after a refused acquire is ignored: the acquire
// itself was answered, and nothing holds this attempt's value.
//
// Capabilities: none. Not reentrant (a second acquire of a held name waits
// like anyone else's), no watchdog, not fair, no fencing token.
//
// Connection: ioredis with maxRetriesPerRequest 0, no offline queue and no
// resend of unfulfilled commands: a script call whose connection drops fails
// and is never sent again. The driver's own retry loop only starts a new
// attempt (a new random value) after the previous one was answered.
//
// Logs go to stderr; stdout carries only the banner and the replies. On end
// of input the driver exits 0 at once, unlocking nothing.
'use strict';

let Redis, Redlock, libVersion;
try {
  Redis = require('ioredis');
  Redlock = require('redlock');
  libVersion = require('redlock/package.json').version;
} catch (e) {
  process.stderr.write(`node-redlock driver: cannot load its npm packages (run make deps): ${e.message}\n`);
  process.exit(1);
}
const { ReplyError } = Redis;

const MIN_DELAY_MS = 10;
const MAX_DELAY_MS = 60;

const log = (msg) => process.stderr.write(`node-redlock driver: ${msg}\n`);
const send = (obj) => process.stdout.write(JSON.stringify(obj) + '\n');

send({ protocol: 1, driver: 'node-redlock', version: libVersion, capabilities: [] });

let client = null; // ioredis, set by hello
let redlock = null;
let watchdogMs = 30000;
const held = new Map(); // lock name -> redlock Lock of this driver's last grant

// random: a small seeded PRNG (mulberry32) for the retry pauses.
let rngState = 1;
function random() {
  rngState = (rngState + 0x6d2b79f5) | 0;
  let t = rngState;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// opErrors collects redlock's clientError events of the op in flight.
let opErrors = [];
const isReplyError = (e) => e instanceof ReplyError || (e && e.name === 'ReplyError');

// fromScript tells whether ioredis error e answered a call of redlock's
// script called name (EVALSHA of its hash, or the EVAL fallback).
function fromScript(e, name) {
  const cmd = e && e.command;
  if (!cmd || !Array.isArray(cmd.args)) return false;
  const s = redlock.scripts[name];
  return cmd.args[0] === s.hash || cmd.args[0] === s.value;
}

// OpError is an unknown outcome (status error).
class OpError extends Error {
  constructor(cause) {
    super((cause && cause.message) || String(cause));
    this.redisError = isReplyError(cause);
  }
}

// relevant returns the first error that leaves the op's outcome unknown:
// any error that is not an error reply, or an error reply to script name.
function relevant(name) {
  return opErrors.find((e) => !isReplyError(e) || fromScript(e, name));
}

function parseAddr(addr) {
  const i = addr.lastIndexOf(':');
  if (i < 0) throw new Error(`bad redis address ${JSON.stringify(addr)}`);
  return { host: addr.slice(0, i).replace(/^\[(.*)\]$/, '$1'), port: Number(addr.slice(i + 1)) };
}

async function hello(req) {
  if (client) throw new Error('hello twice');
  if (!Array.isArray(req.redis) || req.redis.length === 0) throw new Error('hello without redis address');
  const timeout = req.timeout_ms > 0 ? req.timeout_ms : 10000;
  if (req.watchdog_ms > 0) watchdogMs = Math.floor(req.watchdog_ms);
  rngState = Number(req.seed) | 0;
  const name = String(req.client || 'driver');
  client = new Redis({
    ...parseAddr(req.redis[0]),
    username: req.username || undefined,
    password: req.password || undefined,
    db: req.db || 0,
    connectionName: `lockcheck-${name}`,
    connectTimeout: timeout,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    autoResendUnfulfilledCommands: false,
    retryStrategy: (times) => Math.min(times * 50, 500),
  });
  client.on('error', (e) => log(`redis connection: ${e.message}`));
  // retryCount 0: one attempt per acquire; the driver retries by deadline.
  redlock = new Redlock([client], { retryCount: 0 });
  redlock.on('clientError', (e) => opErrors.push(e));
  if (client.status !== 'ready') {
    try {
      await new Promise((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`redis not ready after ${timeout} ms (${client.status})`)), timeout);
        client.once('ready', () => { clearTimeout(t); resolve(); });
      });
    } catch (e) {
      client.disconnect();
      throw e;
    }
  }
  log(`connected to ${req.redis[0]} as ${name}, lease of lease_ms <= 0: ${watchdogMs} ms`);
  return { status: 'ok' };
}

// acquire tries to take name with single-attempt acquires until granted
// (true) or until waitMs has passed (false).
async function acquire(name, leaseMs, waitMs) {
  if (!redlock) throw new Error('no hello yet');
  if (typeof name !== 'string' || name === '') throw new Error('request without lock name');
  const ttl = leaseMs > 0 ? Math.floor(leaseMs) : watchdogMs;
  const deadline = Date.now() + Math.max(0, waitMs);
  for (;;) {
    opErrors = [];
    try {
      const lock = await redlock.acquire(name, ttl);
      held.set(name, lock);
      return true;
    } catch (e) {
      if (!(e instanceof Redlock.LockError)) throw e;
      const bad = relevant('lockScript');
      if (bad) throw new OpError(bad);
    }
    const pause = MIN_DELAY_MS + Math.floor(random() * (MAX_DELAY_MS - MIN_DELAY_MS + 1));
    const left = deadline - Date.now();
    if (left <= 0) return false;
    await sleep(Math.min(pause, left));
  }
}

// lockMargin is kept from timeout_ms to answer fail in time.
const lockMargin = (timeoutMs) => Math.min(200, Math.floor(timeoutMs / 10));

const ops = {
  hello,
  async lock(req) {
    const timeout = req.timeout_ms > 0 ? req.timeout_ms : 10000;
    return { status: (await acquire(req.name, req.lease_ms, timeout - lockMargin(timeout))) ? 'ok' : 'fail' };
  },
  async trylock(req) {
    return { status: (await acquire(req.name, req.lease_ms, req.wait_ms > 0 ? req.wait_ms : 0)) ? 'ok' : 'fail' };
  },
  async unlock(req) {
    if (!redlock) throw new Error('no hello yet');
    const lock = held.get(req.name);
    if (!lock) return { status: 'fail' };
    opErrors = [];
    try {
      await redlock.release(lock);
    } catch (e) {
      if (!(e instanceof Redlock.LockError)) throw e;
      const bad = relevant('unlockScript');
      if (bad) throw new OpError(bad);
      held.delete(req.name);
      return { status: 'fail' };
    }
    held.delete(req.name);
    return { status: 'ok' };
  },
};

async function handle(line) {
  let req;
  try {
    req = JSON.parse(line);
  } catch (e) {
    log(`bad request line: ${line}`);
    process.exit(2);
  }
  const op = ops[req.op];
  if (!op) return send({ id: req.id, status: 'error', error: `unknown op ${JSON.stringify(req.op)}` });
  try {
    const { status, ...more } = await op(req);
    send({ id: req.id, status, ...more });
  } catch (e) {
    const out = { id: req.id, status: 'error', error: (e && e.message) || String(e) };
    if ((e instanceof OpError && e.redisError) || isReplyError(e)) out.redis_error = true;
    send(out);
  }
}

// One request at a time, in order (lockcheck waits for each reply anyway).
let queue = Promise.resolve();
const rl = require('readline').createInterface({ input: process.stdin, terminal: false });
rl.on('line', (line) => {
  if (line.trim() === '') return;
  queue = queue.then(() => handle(line));
});
rl.on('close', () => process.exit(0));
