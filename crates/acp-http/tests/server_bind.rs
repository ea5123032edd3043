//! `server::bind`: a listener whose accept queue absorbs a burst of connections that arrive
//! while the server is busy, where `TcpListener::bind`'s queue of 1,024 drops the rest (their
//! clients' TCP then waits a second before trying again).

#![cfg(target_os = "linux")]

use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};

/// More connections than `TcpListener::bind`'s accept queue holds.
const BURST: usize = 1200;

/// Opens [`BURST`] connections to `listener` before accepting any (the server is busy), then
/// counts how many it can accept within a short while: a connection dropped from a full
/// queue only comes back after the client's SYN retransmission, a second later.
async fn accepted_at_once(listener: TcpListener) -> usize {
    let addr = listener.local_addr().unwrap();
    let clients: Vec<_> = (0..BURST)
        .map(|_| tokio::spawn(TcpStream::connect(addr)))
        .collect();
    // Let the handshakes happen while nobody accepts.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut accepted = Vec::new();
    while let Ok(Ok((stream, _))) =
        tokio::time::timeout(Duration::from_millis(300), listener.accept()).await
    {
        accepted.push(stream);
    }
    let count = accepted.len();
    // The clients still retrying their handshake are refused once the listener is gone.
    drop(listener);
    for client in clients {
        let _ = tokio::time::timeout(Duration::from_secs(10), client).await;
    }
    count
}

/// Raises this process's soft limit on open files to at least `needed` (within the hard
/// limit) and returns the limit now in force.
fn raise_open_files_limit(needed: u64) -> u64 {
    use rustix::process::{Resource, getrlimit, setrlimit};
    let limit = getrlimit(Resource::Nofile);
    let current = limit.current.unwrap_or(u64::MAX);
    if current < needed {
        let raised = limit.maximum.map_or(needed, |hard| hard.min(needed));
        let mut wanted = limit;
        wanted.current = Some(raised);
        setrlimit(Resource::Nofile, wanted).expect("raising the open-file limit");
    }
    getrlimit(Resource::Nofile).current.unwrap_or(u64::MAX)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_of_connections_waits_in_the_accept_queue_instead_of_being_dropped() {
    // Both ends of every connection are in this process.
    let needed = 2 * BURST as u64 + 64;
    let limit = raise_open_files_limit(needed);
    assert!(
        limit >= needed,
        "this test needs {needed} open files; the hard limit allows {limit}"
    );
    let ours = accepted_at_once(acp_http::server::bind("127.0.0.1:0").await.unwrap()).await;
    assert_eq!(ours, BURST, "every connection waited in the queue");
    // The same burst against the default queue loses some: what `bind` is for.
    let default = accepted_at_once(TcpListener::bind("127.0.0.1:0").await.unwrap()).await;
    assert!(default < BURST, "{default} of {BURST} accepted at once");
}

#[tokio::test]
async fn bind_resolves_names_and_reports_an_address_in_use() {
    let listener = acp_http::server::bind("localhost:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    assert!(addr.ip().is_loopback(), "{addr}");
    let error = acp_http::server::bind(addr).await.unwrap_err();
    assert_eq!(error.kind(), std::io::ErrorKind::AddrInUse, "{error}");
}
