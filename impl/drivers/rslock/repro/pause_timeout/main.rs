//! rslock 0.10.0 answers LockManager::lock on a FREE key with
//! Err(LockError::Unavailable) when its one redis-server is stopped
//! (SIGSTOP) for under a second: the SET NX outlives redis-rs 1.8's default
//! response timeout (500 ms, rslock sets none), RestorableConnection::lock
//! reads that error as "not acquired" (lock.rs: `Err(e) => { recover; false }`),
//! and exec_or_retry, below quorum, returns Unavailable, the same answer as
//! for a key someone holds (LockError::Redis exists but lock() never
//! returns it). The SET itself runs when the server resumes, and the
//! clean-up compare-and-delete queued behind it on the same connection
//! deletes it: nobody held the key at any time.
//!
//!     repro/pause_timeout.sh [TRIALS] [PAUSE_MS]
//!     pause_timeout HOST:PORT REDIS_PID [TRIALS] [PAUSE_MS]
//!
//! Cases (each trial starts with the key deleted and checked absent):
//!   paused, retry 1    set_retry(1, 200 ms) as lockcheck's driver sets it
//!                      (one attempt per lock()); SIGSTOP PAUSE_MS
//!                      (default 800, as redis-pause-short's 0.73-0.77 s)
//!   paused, defaults   rslock's default retries (3, 200 ms), same pause
//!   long, defaults     default retries, a pause of 4 s
//!   control free       retry 1, no pause: lock() of the free key
//!   control held       retry 1, no pause, another LockManager holds it
//! After every paused trial: EXISTS of the key (0: the late SET was cleaned
//! up, nobody holds it) and a second lock() with no pause (Ok: it was free).
//! Once, a plain redis-rs SET NX in a pause shows the error rslock drops.
//!
//! Exit status 0 when every "paused, retry 1" trial is Unavailable on a key
//! found free afterwards and the controls answer Ok / Unavailable (the
//! behaviour reproduced), 1 when not, 2 on a setup error.

use std::time::{Duration, Instant};

use redis::AsyncCommands;
use rslock::{LockError, LockManager};

const KEY: &str = "repro:pause_timeout";
const TTL: Duration = Duration::from_millis(1500);

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 2 {
        eprintln!("usage: pause_timeout HOST:PORT REDIS_PID [TRIALS] [PAUSE_MS]");
        std::process::exit(2);
    }
    let url = format!("redis://{}", args[0]);
    let pid: i32 = args[1].parse().expect("REDIS_PID");
    let trials: usize = args.get(2).map(|s| s.parse().expect("TRIALS")).unwrap_or(10);
    let pause = Duration::from_millis(args.get(3).map(|s| s.parse().expect("PAUSE_MS")).unwrap_or(800));
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("tokio runtime");
    std::process::exit(match rt.block_on(run(&url, pid, trials, pause)) {
        Ok(true) => 0,
        Ok(false) => 1,
        Err(e) => {
            eprintln!("setup error: {e}");
            2
        }
    });
}

fn signal(pid: i32, sig: i32) {
    // SAFETY: kill(2) with the pid of the redis-server the script started.
    if unsafe { libc::kill(pid, sig) } != 0 {
        eprintln!("kill({pid}, {sig}) failed: {}", std::io::Error::last_os_error());
        std::process::exit(2);
    }
}

/// stop SIGSTOPs the server and SIGCONTs it after `pause` (a spawned task).
fn stop_for(pid: i32, pause: Duration) -> tokio::task::JoinHandle<()> {
    signal(pid, libc::SIGSTOP);
    tokio::spawn(async move {
        tokio::time::sleep(pause).await;
        signal(pid, libc::SIGCONT);
    })
}

fn what(r: &Result<rslock::Lock, LockError>) -> String {
    match r {
        Ok(_) => "Ok(lock)".into(),
        Err(e) => format!("Err({e:?})"),
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

struct Tally {
    name: &'static str,
    ok: usize,
    unavailable: usize,
    other: usize,
    free_after: usize,
    relock_ok: usize,
    elapsed: Vec<f64>,
}

impl Tally {
    fn new(name: &'static str) -> Self {
        Tally { name, ok: 0, unavailable: 0, other: 0, free_after: 0, relock_ok: 0, elapsed: Vec::new() }
    }
    fn add(&mut self, r: &Result<rslock::Lock, LockError>, el: Duration) {
        match r {
            Ok(_) => self.ok += 1,
            Err(LockError::Unavailable) => self.unavailable += 1,
            Err(_) => self.other += 1,
        }
        self.elapsed.push(ms(el));
    }
    fn line(&self, paused: bool) -> String {
        let n = self.elapsed.len();
        let min = self.elapsed.iter().cloned().fold(f64::INFINITY, f64::min);
        let max = self.elapsed.iter().cloned().fold(0.0, f64::max);
        let mut s = format!(
            "{:<18} {n} trials: Ok {}, Unavailable {}, other {}; lock() took {min:.1}-{max:.1} ms",
            self.name, self.ok, self.unavailable, self.other
        );
        if paused {
            s += &format!(
                "; of the Unavailable, key absent afterwards {}/{}; next lock() Ok {}/{n}",
                self.free_after, self.unavailable, self.relock_ok
            );
        }
        s
    }
}

/// free deletes the key and checks that no one holds it.
async fn free(raw: &mut redis::aio::MultiplexedConnection) -> redis::RedisResult<()> {
    let _: () = raw.del(KEY).await?;
    let n: i64 = raw.exists(KEY).await?;
    assert_eq!(n, 0, "key still present after DEL");
    Ok(())
}

async fn paused_trial(
    t: &mut Tally,
    i: usize,
    mgr: &LockManager,
    raw: &mut redis::aio::MultiplexedConnection,
    pid: i32,
    pause: Duration,
) -> redis::RedisResult<()> {
    free(raw).await?;
    let resume = stop_for(pid, pause);
    let t0 = Instant::now();
    let r = mgr.lock(KEY.as_bytes(), TTL).await;
    let el = t0.elapsed();
    resume.await.expect("resume task");
    t.add(&r, el);
    let exists: i64 = raw.exists(KEY).await?;
    if let Ok(l) = &r {
        mgr.unlock(l).await;
    }
    t.free_after += usize::from(exists == 0 && r.is_err());
    let r2 = mgr.lock(KEY.as_bytes(), TTL).await;
    if let Ok(l) = &r2 {
        t.relock_ok += 1;
        mgr.unlock(l).await;
    }
    println!(
        "  {} #{i}: SIGSTOP {:.0} ms; lock() -> {} after {:.1} ms; EXISTS after resume {exists}; lock() again -> {}",
        t.name,
        ms(pause),
        what(&r),
        ms(el),
        what(&r2)
    );
    Ok(())
}

async fn run(url: &str, pid: i32, trials: usize, pause: Duration) -> redis::RedisResult<bool> {
    let client = redis::Client::open(url)?;
    let mut raw = client.get_multiplexed_async_connection().await?;
    free(&mut raw).await?;

    // What rslock drops: the same SET NX on a plain redis-rs connection.
    let mut plain = client.get_multiplexed_async_connection().await?;
    let resume = stop_for(pid, pause);
    let t0 = Instant::now();
    let r: redis::RedisResult<Option<String>> =
        redis::cmd("SET").arg(KEY).arg("plain").arg("NX").arg("PX").arg(TTL.as_millis() as u64).query_async(&mut plain).await;
    let el = t0.elapsed();
    resume.await.expect("resume task");
    match &r {
        Ok(v) => println!("plain redis-rs SET NX in a {:.0} ms pause: Ok({v:?}) after {:.1} ms", ms(pause), ms(el)),
        Err(e) => println!(
            "plain redis-rs SET NX in a {:.0} ms pause: Err after {:.1} ms: {e} (is_timeout {})",
            ms(pause),
            ms(el),
            e.is_timeout()
        ),
    }
    tokio::time::sleep(Duration::from_millis(50)).await;
    free(&mut raw).await?; // the SET ran on resume: remove it

    let mut one = LockManager::new(vec![url]);
    one.set_retry(1, Duration::from_millis(200));
    let dflt = LockManager::new(vec![url]); // rslock's defaults: 3 tries, 200 ms
    let other = LockManager::new(vec![url]);
    // rslock connects lazily: connect every manager before any pause.
    for m in [&one, &dflt, &other] {
        let _ = m.query_redis_for_key_value(b"repro:connect").await;
    }

    let mut p1 = Tally::new("paused, retry 1");
    for i in 1..=trials {
        paused_trial(&mut p1, i, &one, &mut raw, pid, pause).await?;
    }
    let mut pd = Tally::new("paused, defaults");
    for i in 1..=trials.div_ceil(2) {
        paused_trial(&mut pd, i, &dflt, &mut raw, pid, pause).await?;
    }
    let mut ld = Tally::new("long, defaults");
    for i in 1..=3usize.min(trials) {
        paused_trial(&mut ld, i, &dflt, &mut raw, pid, Duration::from_secs(4)).await?;
    }

    let mut cf = Tally::new("control free");
    let mut ch = Tally::new("control held");
    for _ in 0..trials {
        free(&mut raw).await?;
        let t0 = Instant::now();
        let r = one.lock(KEY.as_bytes(), TTL).await;
        cf.add(&r, t0.elapsed());
        if let Ok(l) = &r {
            one.unlock(l).await;
        }
        free(&mut raw).await?;
        let held = other.lock(KEY.as_bytes(), Duration::from_secs(10)).await.map_err(|e| {
            redis::RedisError::from(std::io::Error::other(format!("the holder's lock(): {e:?}")))
        })?;
        let t0 = Instant::now();
        let r = one.lock(KEY.as_bytes(), TTL).await;
        ch.add(&r, t0.elapsed());
        if let Ok(l) = &r {
            one.unlock(l).await;
        }
        other.unlock(&held).await;
    }

    println!("summary (rslock 0.10.0, redis-rs 1.8.1, key {KEY}, ttl {} ms):", TTL.as_millis());
    for (t, paused) in [(&p1, true), (&pd, true), (&ld, true), (&cf, false), (&ch, false)] {
        println!("  {}", t.line(paused));
    }
    let reproduced = p1.unavailable == trials
        && p1.free_after == trials
        && p1.relock_ok == trials
        && cf.ok == trials
        && ch.unavailable == trials;
    println!(
        "{}",
        if reproduced {
            "REPRODUCED: lock() of a free key answered Unavailable, as for a held key, when Redis paused under 1 s"
        } else {
            "NOT REPRODUCED"
        }
    );
    Ok(reproduced)
}
