//! rslock 0.10.0 (default retries) gives up a valid lock when its
//! connection was lost: extend's first command fails on the dead
//! connection, rslock reads that as "not extended", reconnects, and its
//! cleanup then deletes the lock's keys on the new connection.
//!
//!     repro/run.sh extend_after_disconnect
//!     cargo run --release --locked --example extend_after_disconnect -- A B C
//!
//! A, B, C are host:port of independent redis-servers (one is enough).
//! Steps: lock (10 s); CLIENT KILL TYPE normal on every server, as a
//! server restart, an idle timeout or a proxy reset would drop rslock's
//! connections; the keys still hold the lock's value; extend(&lock, 10 s).
//! Exit status 0 when extend fails and the keys are gone afterwards (the
//! behaviour reproduced), 1 when it does not, 2 on a setup error.

use std::time::Duration;

use redis::AsyncCommands;
use rslock::LockManager;

const KEY: &str = "repro:extend_after_disconnect";

fn main() {
    let addrs: Vec<String> = std::env::args().skip(1).collect();
    if addrs.is_empty() {
        eprintln!("usage: extend_after_disconnect HOST:PORT...");
        std::process::exit(2);
    }
    let urls: Vec<String> = addrs.iter().map(|a| format!("redis://{a}")).collect();
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("tokio runtime");
    std::process::exit(match rt.block_on(run(&urls)) {
        Ok(true) => 0,
        Ok(false) => 1,
        Err(e) => {
            eprintln!("setup error: {e}");
            2
        }
    });
}

async fn values(cons: &mut [redis::aio::MultiplexedConnection], val: &[u8]) -> redis::RedisResult<usize> {
    let mut mine = 0;
    for c in cons.iter_mut() {
        let v: Option<Vec<u8>> = c.get(KEY).await?;
        mine += usize::from(v.as_deref() == Some(val));
    }
    Ok(mine)
}

async fn run(urls: &[String]) -> redis::RedisResult<bool> {
    let mut cons = Vec::new();
    for u in urls {
        let mut c = redis::Client::open(u.as_str())?.get_multiplexed_async_connection().await?;
        let _: () = c.del(KEY).await?;
        cons.push(c);
    }
    let mgr = LockManager::new(urls.to_vec()); // default retries: 3, 200 ms
    let lock = match mgr.lock(KEY.as_bytes(), Duration::from_secs(10)).await {
        Ok(l) => l,
        Err(e) => {
            println!("lock failed: {e}");
            return Ok(false);
        }
    };
    println!("locked on {} of {} servers (validity {} ms)", values(&mut cons, &lock.val).await?, urls.len(), lock.validity_time);
    // Drop every other client's connection (ours are killed too; reconnect).
    let mut killers = Vec::new();
    for u in urls {
        killers.push(redis::Client::open(u.as_str())?.get_multiplexed_async_connection().await?);
    }
    for k in killers.iter_mut() {
        let id: i64 = redis::cmd("CLIENT").arg("ID").query_async(k).await?;
        let n: i64 = redis::cmd("CLIENT").arg("KILL").arg("TYPE").arg("normal").arg("SKIPME").arg("yes").query_async(k).await?;
        println!("CLIENT KILL TYPE normal (client {id} kept): {n} connection(s) dropped");
    }
    cons = killers;
    println!("before extend: {} server(s) hold the lock's value", values(&mut cons, &lock.val).await?);
    let ext = mgr.extend(&lock, Duration::from_secs(10)).await;
    println!("extend(&lock, 10 s) = {}", match &ext {
        Ok(l) => format!("Ok (validity {} ms)", l.validity_time),
        Err(e) => format!("Err({e})"),
    });
    let after = values(&mut cons, &lock.val).await?;
    println!("after extend: {after} server(s) hold the lock's value");
    Ok(ext.is_err() && after == 0)
}
