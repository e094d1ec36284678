//! rslock 0.10.0's LockManager::is_freed on three masters reads one master:
//! after a split vote, a lock held on a quorum reads as freed.
//!
//!     repro/run.sh            (starts three redis-servers, runs this)
//!     cargo run --release --locked --example is_freed_split -- A B C
//!
//! A, B, C are host:port of three independent redis-servers. Steps:
//!  1. another client's attempt holds the key on master A only (the split
//!     vote of two concurrent acquires: each SET NX wins some masters);
//!  2. this client's LockManager::lock wins B and C: a quorum, Ok(lock);
//!  3. the other attempt, below quorum, deletes its own key on A (rslock's
//!     cleanup after a failed attempt does exactly that);
//!  4. is_freed(&lock) says RedisKeyNotFound, while B and C hold the lock's
//!     value and a second LockManager cannot take the lock.
//!
//! Exit status 0 when is_freed reports the held lock as freed (the
//! behaviour reproduced), 1 when it does not, 2 on a setup error.

use std::time::Duration;

use redis::AsyncCommands;
use rslock::{LockError, LockManager};

const KEY: &str = "repro:is_freed_split";

fn main() {
    let addrs: Vec<String> = std::env::args().skip(1).collect();
    if addrs.len() != 3 {
        eprintln!("usage: is_freed_split HOST:PORT HOST:PORT HOST:PORT");
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

async fn run(urls: &[String]) -> redis::RedisResult<bool> {
    let mut cons = Vec::new();
    for u in urls {
        let mut c = redis::Client::open(u.as_str())?.get_multiplexed_async_connection().await?;
        let _: () = c.del(KEY).await?;
        cons.push(c);
    }
    // 1. Another attempt won master A only.
    let _: () = redis::cmd("SET").arg(KEY).arg("other").arg("NX").arg("PX").arg(10_000).query_async(&mut cons[0]).await?;
    // 2. This client wins B and C: a quorum of 3.
    let mut mgr = LockManager::new(urls.to_vec());
    mgr.set_retry(1, Duration::from_millis(200));
    let lock = match mgr.lock(KEY.as_bytes(), Duration::from_secs(10)).await {
        Ok(l) => l,
        Err(e) => {
            println!("lock on B and C failed: {e}");
            return Ok(false);
        }
    };
    println!("lock granted (validity {} ms)", lock.validity_time);
    // 3. The other attempt, below quorum, removes its key from A.
    let _: () = cons[0].del(KEY).await?;
    for (u, c) in urls.iter().zip(cons.iter_mut()) {
        let v: Option<Vec<u8>> = c.get(KEY).await?;
        let mine = v.as_deref() == Some(lock.val.as_slice());
        println!("{u}: key {}", if v.is_none() { "absent" } else if mine { "holds this lock's value" } else { "holds another value" });
    }
    // 4. Ask rslock.
    let freed = mgr.is_freed(&lock).await;
    println!("is_freed(&lock) = {freed:?}");
    let mut other = LockManager::new(urls.to_vec());
    other.set_retry(1, Duration::from_millis(200));
    let second = other.lock(KEY.as_bytes(), Duration::from_secs(1)).await;
    println!("a second LockManager's lock = {}", if second.is_ok() { "Ok (granted)" } else { "Err (the lock is held)" });
    mgr.unlock(&lock).await;
    Ok(matches!(freed, Err(LockError::RedisKeyNotFound)) && second.is_err())
}
