// Shared harness of the node drivers' self-tests: driver processes spoken to
// over the driver protocol (version 1), a redis-server of their own on a free
// 127.0.0.1 port (redis-server must be on PATH), and checks that count
// passes and failures. A self-test calls run(driverPath, Redis, body):
// Redis is the ioredis constructor from the driver's own node_modules.
'use strict';

const { spawn } = require('child_process');
const net = require('net');
const readline = require('readline');

let DRIVER = '';
const WATCHDOG_MS = 900;

let passed = 0;
let failed = 0;
function check(desc, ok, detail) {
  if (ok) passed++;
  else failed++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${desc}${ok || detail === undefined ? '' : `: ${detail}`}`);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const freePort = () =>
  new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

// Driver is one driver process: next() reads its next stdout line.
class Driver {
  constructor(name) {
    this.name = name;
    this.proc = spawn(process.execPath, [DRIVER], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.lines = [];
    this.waiters = [];
    this.stderr = '';
    this.proc.stderr.on('data', (d) => (this.stderr += d));
    readline.createInterface({ input: this.proc.stdout }).on('line', (l) => {
      const w = this.waiters.shift();
      if (w) w(l);
      else this.lines.push(l);
    });
    this.exited = new Promise((resolve) => this.proc.on('exit', (code) => resolve(code)));
    this.id = 0;
  }
  next(ms = 10000) {
    if (this.lines.length) return Promise.resolve(this.lines.shift());
    return new Promise((resolve) => {
      const t = setTimeout(() => resolve('<no reply>'), ms);
      this.waiters.push((l) => { clearTimeout(t); resolve(l); });
    });
  }
  // rq sends a request and resolves to {reply, ms}.
  async rq(req) {
    const id = ++this.id;
    const t0 = Date.now();
    this.proc.stdin.write(JSON.stringify({ id, ...req }) + '\n');
    const line = await this.next();
    let reply;
    try {
      reply = JSON.parse(line);
    } catch (e) {
      reply = { bad: line };
    }
    if (reply.id !== id) reply.status = `wrong reply ${line}`;
    return { reply, ms: Date.now() - t0 };
  }
}

// expect sends req to driver d and checks the reply's status (and optionally
// its latency in [lo, hi] ms).
async function expect(d, desc, req, status, lo, hi) {
  const { reply, ms } = await d.rq(req);
  const timed = lo === undefined || (ms >= lo && ms <= hi);
  check(`${d.name}: ${desc} -> ${status} (${ms} ms)`, reply.status === status && timed,
    `${JSON.stringify(reply)}${timed ? '' : `, not within [${lo}, ${hi}] ms`}`);
  return reply;
}

const hello = (port, extra = {}) => ({
  op: 'hello', protocol: 1, timeout_ms: 2000, redis: [`127.0.0.1:${port}`], username: '', password: '',
  db: 0, client: 't', watchdog_ms: WATCHDOG_MS, seed: 1, ...extra,
});

// run starts a redis-server and a client rc on it, runs body({port, rc,
// drivers}) (drivers: the Driver processes body starts, killed at the end),
// prints the tally and exits 1 if any check failed.
async function run(driverPath, Redis, body) {
  DRIVER = driverPath;
  const port = await freePort();
  const server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'],
    { stdio: 'ignore' });
  const rc = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => 100 });
  rc.on('error', () => {});
  const drivers = [];
  try {
    for (let i = 0; i < 50; i++) {
      try { await rc.connect(); break; } catch (e) { await sleep(100); }
    }
    await body({ port, rc, drivers });
  } catch (e) {
    check('self-test ran to its end', false, e && e.stack);
  } finally {
    for (const d of drivers) d.proc.kill('SIGKILL');
    rc.disconnect();
    server.kill();
  }
  if (failed) for (const d of [...new Set(drivers)]) if (d.stderr) console.log(`--- ${d.name} stderr:\n${d.stderr.trim()}`);
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

module.exports = { WATCHDOG_MS, Driver, check, expect, freePort, hello, run, sleep };
