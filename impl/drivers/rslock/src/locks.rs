//! The requests, mapped onto rslock's LockManager.
//!
//!   hello    one redis::Client per address (hello's "redis"; topology
//!            "redlock" lists N independent masters), PING on each: ok when
//!            a quorum (N/2+1) answered within timeout_ms; then
//!            LockManager::from_clients with set_retry(1, _), so that each
//!            LockManager::lock is one attempt (SET NX PX of 20 random bytes
//!            on every master; below quorum or past the validity: rslock
//!            runs its compare-and-delete on every master and says
//!            Unavailable or TtlExceeded).
//!   lock     attempts until granted, each failed one followed by a sleep of
//!            uniform [0, 200 ms) (rslock's default retry delay, drawn from
//!            hello's seed: rslock's own jitter is unseeded), or fail once
//!            timeout_ms is about to run out.
//!   trylock  the same loop until wait_ms (a first attempt whatever the
//!            wait, a last one at its end).
//!            The lease is lease_ms, or watchdog_ms when lease_ms <= 0: a
//!            plain lease (rslock renews only inside `using`, see below).
//!   unlock   no Lock kept for the name -> fail without asking Redis. Else
//!            rslock's unlock returns nothing (best effort), so the driver
//!            first asks the quorum whether the grant is still this
//!            driver's: LockManager::extend(lock, 100 ms), rslock's
//!            owner-checked script on every master, Ok on a quorum. Ok ->
//!            unlock -> ok (a master the unlock missed drops the key within
//!            100 ms); Unavailable (no quorum still holds this grant's value:
//!            expired, taken over; rslock then deletes what is left of it)
//!            -> fail; TtlExceeded (the check took over 100 ms: a master
//!            slow or gone) -> error.
//!            A "no" of rslock (a refused acquire, a refused owner check) is
//!            fail only when every master then answers PING on the driver's
//!            own watch connection, which stayed up since it last looked:
//!            rslock reads a Redis error as a refusal (and a connection it
//!            lost fails its next command before it reconnects), so with a
//!            master out of reach or a connection lost the outcome is
//!            unknown (error). rslock's is_freed cannot serve here:
//!            it reads one master (repro/is_freed_split.rs).
//!   cycle    lock (the same loop, bounded by the cycle's end) and unlock
//!            (rslock's unlock, no is_freed) back to back.
//!
//! Not reentrant: a second lock of a name this driver holds waits like
//! anyone else's (rslock's keys are plain strings with a fresh random value
//! per attempt). No watchdog: rslock renews a hold only inside
//! LockManager::using(resource, ttl, routine), which owns the critical
//! section as a future it drops when a renewal fails (and a renewal after a
//! lost connection fails and deletes the lock: repro/extend_after_disconnect.rs);
//! the protocol's holds live outside the driver, between its lock and
//! unlock replies.
//!
//! rslock turns every Redis error of an attempt (a timeout, a reset, an
//! error reply) into "not acquired", so a fail can follow a SET that took
//! effect and whose cleanup failed too: such a key outlives the fail until
//! its lease runs out. The driver cannot tell (the library keeps the
//! errors), and reports what rslock said.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use futures::future::join_all;
use redis::aio::MultiplexedConnection;
use redis::{Client, ConnectionAddr, IntoConnectionInfo, RedisConnectionInfo};
use rslock::{Lock, LockError, LockManager};
use serde_json::{json, Map, Value};

/// The protocol version this driver speaks.
pub const PROTOCOL: i64 = 1;
const DEFAULT_TIMEOUT_MS: u64 = 10_000;
/// A hold's lease when lease_ms <= 0 and hello gave no watchdog_ms.
const DEFAULT_LEASE_MS: u64 = 30_000;
/// rslock's default retry delay: sleeps are uniform in [0, RETRY_DELAY).
const RETRY_DELAY: Duration = Duration::from_millis(200);
/// redis-rs's response timeout, which the connections rslock opens keep
/// (redis-rs 1.8 client.rs: a reply not read within it fails the command).
/// rslock reads that failure as "not acquired", though the SET may still
/// run on the server, after its clean-up or, on a slow master, before it.
const RESPONSE_TIMEOUT: Duration = Duration::from_millis(500);
/// The most masters hello takes.
const MAX_ADDRS: usize = 9;
/// The lease unlock's owner check (extend) sets before it deletes the keys:
/// what a key can outlive an unlock that did not reach its master by.
const OWNER_PROBE_TTL: Duration = Duration::from_millis(100);
/// A cycle needs this much of timeout_ms beyond duration_ms.
const CYCLE_SLACK: Duration = Duration::from_secs(1);

type Reply = Map<String, Value>;

/// One driver process: one lock owner.
pub struct Driver {
    mgr: Option<LockManager>,
    /// One watch connection per master, beside rslock's own: unreached()
    /// asks them whether a "no" of rslock may hide an error.
    masters: Vec<Watch>,
    /// The Lock of this driver's latest grant of each name.
    held: HashMap<String, Lock>,
    watchdog_ms: u64,
    client: String,
    rng: SplitMix64,
}

impl Driver {
    pub fn new() -> Self {
        Driver { mgr: None, masters: Vec::new(), held: HashMap::new(), watchdog_ms: 0, client: "?".into(), rng: SplitMix64(0) }
    }

    /// serve answers one request (the reply carries its id).
    pub async fn serve(&mut self, req: &Map<String, Value>) -> Value {
        let start = Instant::now();
        let op = str_of(req, "op");
        let total = Duration::from_millis(match u64_of(req, "timeout_ms") {
            0 => DEFAULT_TIMEOUT_MS,
            t => t,
        });
        // Answer a little before timeout_ms; lockcheck adds a grace on top.
        let hard = start + total - (total / 20).min(Duration::from_millis(100));
        let name = str_of(req, "name").to_string();
        let work = async {
            match op {
                "hello" => self.hello(req).await,
                "lock" | "trylock" | "unlock" | "cycle" if self.mgr.is_none() => error(format!("{op} before hello")),
                "lock" | "trylock" | "unlock" | "cycle" if name.is_empty() => error(format!("{op} without a name")),
                "lock" => self.op_lock(req, &name, start, total).await,
                "trylock" => self.op_trylock(req, &name, start, total).await,
                "unlock" => self.op_unlock(&name).await,
                "cycle" => self.op_cycle(req, &name, start, total).await,
                _ => error(format!("unknown op {op:?}")),
            }
        };
        let mut rep = match tokio::time::timeout_at(hard.into(), work).await {
            Ok(rep) => rep,
            Err(_) => error(format!("{op}: a call still in flight when timeout_ms ran out (outcome unknown)")),
        };
        if rep.get("status").and_then(Value::as_str) == Some("error") {
            eprintln!("rslock driver: {}: {op} {name}: {}", self.client, rep["error"]);
        }
        rep.insert("id".into(), req["id"].clone());
        Value::Object(rep)
    }

    async fn hello(&mut self, req: &Map<String, Value>) -> Reply {
        if req.get("protocol").and_then(Value::as_i64) != Some(PROTOCOL) {
            return error(format!("protocol {} not supported (want {PROTOCOL})", req.get("protocol").unwrap_or(&Value::Null)));
        }
        let addrs: Vec<&str> = req.get("redis").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
        let most = match str_of(req, "topology") {
            "" | "single" => 1,
            "redlock" => MAX_ADDRS,
            t => return error(format!("topology {t:?} not supported (rslock runs on single and redlock)")),
        };
        if addrs.is_empty() || addrs.len() > most {
            return error(format!("this topology takes 1..{most} Redis addresses; got {}", addrs.len()));
        }
        self.mgr = None;
        self.masters.clear();
        self.held.clear();
        self.client = match str_of(req, "client") {
            "" => "?".into(),
            c => c.into(),
        };
        self.watchdog_ms = u64_of(req, "watchdog_ms");
        self.rng = SplitMix64(u64_of(req, "seed") ^ fnv1a(self.client.as_bytes()));
        let mut clients = Vec::new();
        for a in &addrs {
            match client_for(a, str_of(req, "username"), str_of(req, "password"), req.get("db").and_then(Value::as_i64).unwrap_or(0)) {
                Ok(c) => clients.push(c),
                Err(e) => return error(e),
            }
        }
        let pings = join_all(clients.iter().map(ping)).await;
        let errs: Vec<String> = addrs.iter().zip(&pings).filter_map(|(a, r)| r.as_ref().err().map(|e| format!("{a}: {e}"))).collect();
        if pings.len() - errs.len() < addrs.len() / 2 + 1 {
            return error(format!("no quorum of the Redis nodes answered PING: {}", errs.join("; ")));
        }
        self.masters = addrs.iter().map(|a| a.to_string()).zip(clients.iter().cloned()).map(|(addr, client)| Watch { addr, client, con: None }).collect();
        let _ = self.unreached().await; // connects the watches
        let mut mgr = LockManager::from_clients(clients);
        mgr.set_retry(1, RETRY_DELAY);
        // rslock connects lazily: one GET of a key nobody uses makes it
        // connect to every node now rather than inside the first op.
        let _ = mgr.query_redis_for_key_value(b"lockcheck:rslock-driver:connect").await;
        self.mgr = Some(mgr);
        eprintln!("rslock driver: {}: connected to {} (quorum {}), rslock {}", self.client, addrs.join(", "), addrs.len() / 2 + 1, super::RSLOCK_VERSION);
        ok()
    }

    fn lease(&self, req: &Map<String, Value>) -> Duration {
        let ms = match req.get("lease_ms").and_then(Value::as_i64).unwrap_or(0) {
            ms if ms > 0 => ms as u64,
            _ if self.watchdog_ms > 0 => self.watchdog_ms,
            _ => DEFAULT_LEASE_MS,
        };
        Duration::from_millis(ms)
    }

    /// attempt is one LockManager::lock (a granted Lock is kept). A "not
    /// acquired" that took half RESPONSE_TIMEOUT or more is Unanswered: a
    /// refusal comes back in a round trip, a timed-out SET after the
    /// timeout, and rslock answers both alike.
    async fn attempt(&mut self, name: &str, lease: Duration) -> Result<Attempt, Reply> {
        let mgr = self.mgr.as_ref().expect("attempt before hello");
        let began = Instant::now();
        match mgr.lock(name.as_bytes(), lease).await {
            Ok(lock) => {
                self.held.insert(name.to_string(), lock);
                Ok(Attempt::Granted)
            }
            Err(LockError::Unavailable | LockError::TtlExceeded) if began.elapsed() >= RESPONSE_TIMEOUT / 2 => Ok(Attempt::Unanswered),
            Err(LockError::Unavailable | LockError::TtlExceeded) => Ok(Attempt::Refused),
            Err(e) => Err(error(format!("rslock lock: {e}"))),
        }
    }

    /// acquire_until attempts, sleeping a seeded [0, 200 ms) between
    /// attempts, until granted or until `until` (a last attempt then): the
    /// last attempt's answer.
    async fn acquire_until(&mut self, name: &str, lease: Duration, until: Instant) -> Result<Attempt, Reply> {
        loop {
            let a = self.attempt(name, lease).await?;
            let now = Instant::now();
            if a == Attempt::Granted || now >= until {
                return Ok(a);
            }
            tokio::time::sleep(self.rng.below(RETRY_DELAY).min(until - now)).await;
        }
    }

    async fn op_lock(&mut self, req: &Map<String, Value>, name: &str, start: Instant, total: Duration) -> Reply {
        let lease = self.lease(req);
        let r = self.acquire_until(name, lease, give_up(start, total)).await;
        self.refused(r, "lock").await
    }

    async fn op_trylock(&mut self, req: &Map<String, Value>, name: &str, start: Instant, total: Duration) -> Reply {
        let lease = self.lease(req);
        let wait = Duration::from_millis(u64_of(req, "wait_ms"));
        let r = self.acquire_until(name, lease, (start + wait).min(give_up(start, total))).await;
        self.refused(r, "trylock").await
    }

    /// refused answers an acquire: a refusal is fail only when its last
    /// attempt was answered and every master answers now; rslock reads a
    /// Redis error or timeout as "not acquired", so otherwise its last
    /// attempt's outcome is unknown.
    async fn refused(&mut self, r: Result<Attempt, Reply>, op: &str) -> Reply {
        match r {
            Ok(Attempt::Granted) => ok(),
            Ok(Attempt::Unanswered) => error(format!("{op}: rslock said not acquired after {:?} or more (redis-rs's response timeout is {RESPONSE_TIMEOUT:?}): rslock reads a timeout as a refusal, outcome unknown", RESPONSE_TIMEOUT / 2)),
            Ok(Attempt::Refused) => match self.unreached().await {
                None => fail(),
                Some(why) => error(format!("{op}: rslock said not acquired, {why}: rslock reads errors as refusals, outcome unknown")),
            },
            Err(rep) => rep,
        }
    }

    /// unreached says which masters' watch connections did not answer PING
    /// or were lost since the last look (None: all answered on connections
    /// that stayed up). rslock reads an error as a refusal, and a connection
    /// it lost fails its next command too (it only reconnects), so a lost
    /// watch connection stands for a lost rslock connection.
    async fn unreached(&mut self) -> Option<String> {
        let errs: Vec<String> = join_all(self.masters.iter_mut().map(Watch::check)).await.into_iter().flatten().collect();
        if errs.is_empty() {
            None
        } else {
            Some(format!("master(s) unreached or reconnected ({})", errs.join("; ")))
        }
    }

    async fn op_unlock(&mut self, name: &str) -> Reply {
        let Some(lock) = self.held.remove(name) else {
            return fail();
        };
        let mgr = self.mgr.clone().expect("unlock before hello");
        match mgr.extend(&lock, OWNER_PROBE_TTL).await {
            Ok(probed) => {
                mgr.unlock(&probed).await;
                ok()
            }
            Err(LockError::Unavailable) => match self.unreached().await {
                None => fail(),
                Some(why) => error(format!("unlock: rslock's extend said not the owner, {why}: rslock reads errors as refusals, outcome unknown")),
            },
            Err(e) => {
                self.held.insert(name.to_string(), lock);
                error(format!("rslock extend (the owner check before unlock): {e}"))
            }
        }
    }

    async fn op_cycle(&mut self, req: &Map<String, Value>, name: &str, start: Instant, total: Duration) -> Reply {
        let duration = Duration::from_millis(u64_of(req, "duration_ms"));
        if duration + CYCLE_SLACK > total {
            return error(format!("cycle: duration_ms {} leaves less than {CYCLE_SLACK:?} of timeout_ms {}", duration.as_millis(), total.as_millis()));
        }
        let lease = self.lease(req);
        let log = req.get("log").and_then(Value::as_bool).unwrap_or(false);
        let end = start + duration;
        let (mut count, mut grants, mut open) = (0u64, Vec::new(), 0i64);
        while Instant::now() < end {
            let requested = mono_ns();
            match self.acquire_until(name, lease, end).await {
                Err(rep) => return rep,
                Ok(Attempt::Granted) => {}
                Ok(_) => {
                    open = requested;
                    break;
                }
            }
            let at = Instant::now();
            let granted = mono_ns();
            let lock = self.held.remove(name).expect("granted lock is kept");
            self.mgr.as_ref().expect("cycle before hello").unlock(&lock).await;
            if at <= end {
                count += 1;
            }
            if log {
                grants.push(json!([requested, granted, mono_ns()]));
            }
        }
        let mut rep = ok();
        rep.insert("count".into(), count.into());
        if log {
            rep.insert("grants".into(), grants.into());
        }
        if open != 0 {
            rep.insert("open".into(), open.into());
        }
        rep
    }
}

/// give_up is when a blocking acquire stops attempting: the last slice of
/// the op's time is kept for the last attempt's round trips.
fn give_up(start: Instant, total: Duration) -> Instant {
    start + total - (total / 5).min(Duration::from_millis(250))
}

/// What one LockManager::lock answered: granted, refused within a round
/// trip, or "not acquired" only after the response timeout could fire.
#[derive(Clone, Copy, PartialEq)]
enum Attempt {
    Granted,
    Refused,
    Unanswered,
}

/// Watch is the driver's own connection to one master.
struct Watch {
    addr: String,
    client: Client,
    con: Option<MultiplexedConnection>,
}

impl Watch {
    /// check PINGs the master on the watch connection: None when it
    /// answered on a connection that stayed up since the last check; else
    /// why not (the connection is then dropped, and made again next time,
    /// which reports it once more as reconnected).
    async fn check(&mut self) -> Option<String> {
        let Some(con) = self.con.as_mut() else {
            return Some(match self.client.get_multiplexed_async_connection().await {
                Ok(c) => {
                    self.con = Some(c);
                    format!("{}: reconnected", self.addr)
                }
                Err(e) => format!("{}: {e}", self.addr),
            });
        };
        match redis::cmd("PING").query_async::<String>(con).await {
            Ok(_) => None,
            Err(e) => {
                self.con = None;
                Some(format!("{}: {e}", self.addr))
            }
        }
    }
}

/// client_for is a redis-rs client of host:port with hello's credentials.
fn client_for(addr: &str, username: &str, password: &str, db: i64) -> Result<Client, String> {
    let (host, port) = addr.rsplit_once(':').ok_or_else(|| format!("bad redis address {addr:?} (want host:port)"))?;
    let port: u16 = port.parse().map_err(|_| format!("bad redis address {addr:?} (want host:port)"))?;
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let mut settings = RedisConnectionInfo::default().set_db(db);
    if !username.is_empty() {
        settings = settings.set_username(username);
    }
    if !password.is_empty() {
        settings = settings.set_password(password);
    }
    let info = ConnectionAddr::Tcp(host.to_string(), port)
        .into_connection_info()
        .map_err(|e| format!("{addr}: {e}"))?
        .set_redis_settings(settings);
    Client::open(info).map_err(|e| format!("{addr}: {e}"))
}

async fn ping(c: &Client) -> redis::RedisResult<String> {
    let mut con = c.get_multiplexed_async_connection().await?;
    redis::cmd("PING").query_async(&mut con).await
}

/// mono_ns reads CLOCK_MONOTONIC in nanoseconds (lockcheck reads the same
/// clock for cycle logs).
fn mono_ns() -> i64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: ts is a valid timespec; CLOCK_MONOTONIC always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as i64 * 1_000_000_000 + ts.tv_nsec as i64
}

fn ok() -> Reply {
    status("ok")
}

fn fail() -> Reply {
    status("fail")
}

fn error(msg: String) -> Reply {
    let mut r = status("error");
    r.insert("error".into(), msg.into());
    r
}

fn status(s: &str) -> Reply {
    let mut r = Map::new();
    r.insert("status".into(), s.into());
    r
}

fn str_of<'a>(req: &'a Map<String, Value>, key: &str) -> &'a str {
    req.get(key).and_then(Value::as_str).unwrap_or("")
}

fn u64_of(req: &Map<String, Value>, key: &str) -> u64 {
    req.get(key).and_then(Value::as_i64).filter(|v| *v > 0).unwrap_or(0) as u64
}

fn fnv1a(b: &[u8]) -> u64 {
    b.iter().fold(0xcbf29ce484222325, |h, &x| (h ^ x as u64).wrapping_mul(0x100000001b3))
}

/// SplitMix64: the driver's seeded randomness (retry sleeps).
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e3779b97f4a7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d049bb133111eb);
        z ^ (z >> 31)
    }

    /// below is uniform in [0, max) at microsecond resolution.
    fn below(&mut self, max: Duration) -> Duration {
        Duration::from_micros(self.next() % (max.as_micros() as u64).max(1))
    }
}
