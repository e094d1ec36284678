#!/usr/bin/env node
// lockcheck driver, protocol 2 with owners (see impl/driver/doc.go), for the npm package
// node-redisson: Redisson's RLock scripts and key layout (a hash <name> with
// one field <executorId>:<clientId> counting the holds, unlock messages on
// redisson_lock__channel:{<name>}) over ioredis.
//
// One driver process hosts one lock owner, or with hello's "owners" several
// (capability owners), all on one Redisson instance as an application's
// async tasks share it. node-redisson's owner field is "<executor
// id>:<clientId>": the executor id is a random UUID drawn once per Redisson
// instance, and clientId defaults to a new random UUID per getLock call, so
// the driver passes one fixed clientId to every getLock of an owner (the
// request's "owner", or hello's client name when it names none) and keeps
// one Redisson instance for its whole life. Requests that name an owner run
// at once, concurrently, and are answered as they finish (lockcheck sends
// an owner's next request only after its reply); those that name none run
// one at a time, in order. Each
// request gets a fresh lock object (getLock is cheap, as in Redisson): a lock
// object remembers the lease of its last leased grant and node-redisson
// resets it only on a successful full unlock, so a kept object would, after
// an unlock that failed (lease ran out), give its next watchdog hold that old
// lease. The watchdog's bookkeeping is per Redisson instance and lock name,
// so an unlock through a new object stops the renewal of an earlier one.
//
//   hello    new Redisson({lockWatchdogTimeout: watchdog_ms}), ok when both of
//            its connections (commands, pub/sub) are ready within timeout_ms
//   lock     lease_ms > 0: lock.lock(lease_ms); else lock.lock() (watchdog).
//            lock() cannot be cancelled: no reply until granted.
//   trylock  lock.tryLock(wait_ms, lease_ms > 0 ? lease_ms : true) -> ok/fail
//   unlock   lock.unlock() -> ok; the library's RedissonLockError "attempt to
//            unlock lock, not locked by current client" -> fail
//   Redis error replies (ioredis ReplyError) -> error with redis_error: true;
//   anything else -> error.
//
// Capabilities: reentrant (the hash field counts holds), watchdog (renews
// the lease every watchdog_ms/3). Not fair, no hold count in the library's API.
//
// Connection: ioredis with maxRetriesPerRequest 0, no offline queue and no
// resend of unfulfilled commands: a command whose connection drops fails
// (error, outcome unknown) and is never sent again, so a non-idempotent
// script (HINCRBY of a reentry) never runs twice. ioredis still reconnects in
// the background, so later commands (the watchdog's) may succeed.
//
// Logs go to stderr; stdout carries only the banner and the replies. On end
// of input the driver exits 0 at once, unlocking nothing.
'use strict';

let Redisson, RedissonLockError, ReplyError, libVersion;
try {
  ({ Redisson } = require('node-redisson'));
  ({ RedissonLockError } = require('node-redisson/dist/errors/RedissonLockError'));
  ({ ReplyError } = require('ioredis'));
  libVersion = require('node-redisson/package.json').version;
} catch (e) {
  process.stderr.write(`node-redisson driver: cannot load its npm packages (run make deps): ${e.message}\n`);
  process.exit(1);
}

const NOT_OWNER = 'attempt to unlock lock, not locked by current client';

const log = (msg) => process.stderr.write(`node-redisson driver: ${msg}\n`);
const send = (obj) => process.stdout.write(JSON.stringify(obj) + '\n');

send({ protocol: 2, driver: 'node-redisson', version: libVersion, capabilities: ['reentrant', 'watchdog', 'owners'] });

let redisson = null; // set by hello
let clientId = null; // the owner of requests that name none: hello's client

// pending are the requests owed a reply; reply answers each once.
const pending = new Set();
function reply(req, status, more) {
  if (!pending.delete(req)) return;
  send({ id: req.id, status, ...more });
}

function errorReply(req, err) {
  const redisError = err instanceof ReplyError || (err && err.name === 'ReplyError');
  const msg = (err && err.message) || String(err);
  reply(req, 'error', redisError ? { error: msg, redis_error: true } : { error: msg });
}

// An error the library leaves unhandled (its pub/sub wait subscribes inside
// an async Promise executor) ends the ops in flight as unknown: whose it
// was cannot be told, and lockcheck ends the process for every owner.
process.on('unhandledRejection', (err) => {
  log(`unhandled: ${(err && err.stack) || err}`);
  for (const req of [...pending]) errorReply(req, err);
});

function parseAddr(addr) {
  const i = addr.lastIndexOf(':');
  if (i < 0) throw new Error(`bad redis address ${JSON.stringify(addr)}`);
  return { host: addr.slice(0, i).replace(/^\[(.*)\]$/, '$1'), port: Number(addr.slice(i + 1)) };
}

function ready(conn, ms) {
  if (conn.status === 'ready') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`redis not ready after ${ms} ms (${conn.status})`)), ms);
    conn.once('ready', () => { clearTimeout(t); resolve(); });
  });
}

async function hello(req) {
  if (redisson) throw new Error('hello twice');
  if (!Array.isArray(req.redis) || req.redis.length === 0) throw new Error('hello without redis address');
  const timeout = req.timeout_ms > 0 ? req.timeout_ms : 10000;
  clientId = String(req.client || 'driver');
  const options = {
    ...parseAddr(req.redis[0]),
    username: req.username || undefined,
    password: req.password || undefined,
    db: req.db || 0,
    connectionName: `lockcheck-${clientId}`,
    connectTimeout: timeout,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    autoResendUnfulfilledCommands: false,
    retryStrategy: (times) => Math.min(times * 50, 500),
  };
  const watchdog = req.watchdog_ms > 0 ? Math.floor(req.watchdog_ms) : 30000;
  redisson = new Redisson({ redis: { options }, lockWatchdogTimeout: BigInt(watchdog) });
  const conns = [redisson.redis, redisson.commandExecutor.subscribeRedis];
  conns.forEach((c, i) => c.on('error', (e) => log(`redis ${i ? 'pub/sub' : 'command'} connection: ${e.message}`)));
  try {
    await Promise.all(conns.map((c) => ready(c, timeout)));
  } catch (e) {
    conns.forEach((c) => c.disconnect());
    throw e;
  }
  log(`connected to ${req.redis[0]} as owner ${redisson.commandExecutor.id}:${clientId}, watchdog ${watchdog} ms`);
  return { status: 'ok' };
}

function lockOf(req) {
  if (!redisson) throw new Error('no hello yet');
  const name = req.name;
  if (typeof name !== 'string' || name === '') throw new Error('request without lock name');
  return redisson.getLock(name, req.owner ? String(req.owner) : clientId);
}

const lease = (req) => (req.lease_ms > 0 ? Math.floor(req.lease_ms) : true);

const ops = {
  hello,
  async lock(req) {
    const l = lockOf(req);
    await l.lock(lease(req));
    return { status: 'ok' };
  },
  async trylock(req) {
    const l = lockOf(req);
    const wait = req.wait_ms > 0 ? Math.floor(req.wait_ms) : 0;
    return { status: (await l.tryLock(wait, lease(req))) ? 'ok' : 'fail' };
  },
  async unlock(req) {
    const l = lockOf(req);
    try {
      await l.unlock();
    } catch (e) {
      if (e instanceof RedissonLockError && e.message.startsWith(NOT_OWNER)) return { status: 'fail' };
      throw e;
    }
    return { status: 'ok' };
  },
};

function parse(line) {
  try {
    return JSON.parse(line);
  } catch (e) {
    log(`bad request line: ${line}`);
    process.exit(2);
  }
}

async function handle(req) {
  pending.add(req);
  const op = ops[req.op];
  if (!op) return reply(req, 'error', { error: `unknown op ${JSON.stringify(req.op)}` });
  try {
    const { status, ...more } = await op(req);
    reply(req, status, more);
  } catch (e) {
    errorReply(req, e);
  }
}

// Requests that name no owner: one at a time, in order (lockcheck waits
// for each reply anyway). Those of named owners: at once.
let queue = Promise.resolve();
const rl = require('readline').createInterface({ input: process.stdin, terminal: false });
rl.on('line', (line) => {
  if (line.trim() === '') return;
  const req = parse(line);
  if (req.owner) {
    handle(req);
    return;
  }
  queue = queue.then(() => handle(req));
});
rl.on('close', () => process.exit(0));
