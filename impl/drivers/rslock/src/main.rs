//! lockcheck driver, protocol 1 (impl/driver/doc.go), for the Rust crate
//! rslock 0.10.0 (Redlock over redis-rs 1.8): one process per logical
//! client, JSON Lines on stdin/stdout, logs on stderr.
//!
//! The banner announces the capability `cycle` only (not reentrant, not
//! fair, not fenced, no watchdog: see locks.rs) and the topologies `single`
//! (one Redis, quorum 1) and `redlock` (hello lists N independent masters,
//! quorum N/2+1, rslock's own).
//!
//! Requests are read by a thread of their own and served one at a time on a
//! single-threaded tokio runtime; each op is bounded by its timeout_ms (an
//! op still in flight then is answered error: its outcome is unknown). On
//! end of input the driver exits 0 at once, unlocking nothing.

mod locks;

use std::io::{BufRead, Write};

use serde_json::{json, Map, Value};

/// The rslock version Cargo.toml pins (=0.10.0), for the banner.
const RSLOCK_VERSION: &str = "0.10.0";

fn main() {
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("rslock driver: cannot start a tokio runtime: {e}");
            std::process::exit(1);
        }
    };
    write(&json!({
        "protocol": locks::PROTOCOL,
        "driver": "rslock",
        "version": RSLOCK_VERSION,
        "capabilities": ["cycle"],
        "topologies": ["single", "redlock"],
    }));
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<String>();
    // The reader thread ends at end of input (or a read error), closing
    // the channel; it is never joined: exit ends it.
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            let Ok(l) = line else { return };
            if tx.send(l).is_err() {
                return;
            }
        }
    });
    let code = rt.block_on(async move {
        let mut d = locks::Driver::new();
        while let Some(line) = rx.recv().await {
            let line = line.trim();
            if line.is_empty() {
                continue;
            }
            let req = match parse(line) {
                Ok(req) => req,
                Err(e) => {
                    eprintln!("rslock driver: bad request line {:?}: {e}", trunc(line));
                    return 2;
                }
            };
            write(&d.serve(&req).await);
        }
        0 // end of input: exit without unlocking anything
    });
    std::process::exit(code);
}

/// parse reads one request: a JSON object with an integer id.
fn parse(line: &str) -> Result<Map<String, Value>, String> {
    match serde_json::from_str::<Value>(line) {
        Ok(Value::Object(m)) if m.get("id").and_then(Value::as_i64).is_some() => Ok(m),
        Ok(_) => Err("not a request object with an integer id".into()),
        Err(e) => Err(e.to_string()),
    }
}

fn trunc(s: &str) -> &str {
    match s.char_indices().nth(200) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

/// write prints one line on stdout; lockcheck gone (a broken pipe) ends
/// the driver.
fn write(v: &Value) {
    let mut out = std::io::stdout().lock();
    if writeln!(out, "{v}").and_then(|_| out.flush()).is_err() {
        std::process::exit(1);
    }
}
