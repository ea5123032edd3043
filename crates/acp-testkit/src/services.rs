//! Real servers for tests, started by the tests themselves: a throwaway PostgreSQL cluster
//! ([`Postgres`]) and an HAProxy load balancer ([`Haproxy`]), both on 127.0.0.1 and on free
//! ports, both stopped and their files removed when dropped.
//!
//! Nothing is installed or configured by hand: the programs of the Debian packages
//! (`postgresql`, `haproxy`) are found on `PATH` or, for PostgreSQL, under
//! `/usr/lib/postgresql/*/bin` (newest version first). When one is missing the test is skipped
//! with a loud notice on stderr — except under CI (`CI=true`), where it fails: CI installs the
//! packages (`.ci/run`) and must never skip these tests.
//!
//! ```no_run
//! use acp_testkit::services::Postgres;
//!
//! let Some(postgres) = Postgres::start() else {
//!     return; // Skipped, with a notice (outside CI only).
//! };
//! let url = postgres.create_database("sessions");
//! assert!(url.starts_with("postgres://"));
//! ```

use std::io::{BufRead, BufReader};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::{in_ci, output_with_deadline};

/// How long a server gets to start, and to stop after it was asked to.
const SERVICE_TIMEOUT: Duration = Duration::from_secs(60);

/// The database role of the throwaway clusters (a superuser, trusted on 127.0.0.1).
pub const POSTGRES_USER: &str = "acp";

/// Finds `program` on `PATH`, then in each of `extra` (in order).
fn find_program(program: &str, extra: &[PathBuf]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(extra.iter().cloned())
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
}

/// `/usr/lib/postgresql/<version>/bin`, newest version first (where Debian keeps the server's
/// programs off `PATH`).
fn postgres_dirs() -> Vec<PathBuf> {
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .filter_map(|entry| {
            let entry = entry.ok()?;
            let version = entry.file_name().to_str()?.parse().ok()?;
            Some((version, entry.path().join("bin")))
        })
        .collect();
    versions.sort_by_key(|(version, _)| std::cmp::Reverse(*version));
    versions.into_iter().map(|(_, dir)| dir).collect()
}

/// The program, or `None` after a loud notice that the test is skipped (outside CI).
///
/// # Panics
///
/// Under CI, when the program is missing.
fn required(program: &str, package: &str, extra: &[PathBuf]) -> Option<PathBuf> {
    if let Some(found) = find_program(program, extra) {
        return Some(found);
    }
    assert!(
        !in_ci(),
        "`{program}` is required under CI but was not found on PATH{}: install the Debian \
         package `{package}` (`.ci/run` does)",
        if extra.is_empty() {
            ""
        } else {
            " or under /usr/lib/postgresql/*/bin"
        }
    );
    eprintln!(
        "\n*** SKIPPED: this test needs `{program}` (Debian package `{package}`), which is not \
         installed: `apt-get install -y {package}` to run it (CI requires it) ***\n"
    );
    None
}

/// A free TCP port of 127.0.0.1 (free when asked; the server binds it just after).
///
/// # Panics
///
/// When no port can be bound.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|addr| addr.port())
        .expect("bind a free port of 127.0.0.1")
}

/// Waits until something accepts TCP connections on `127.0.0.1:port`; false when `process`
/// exited or `limit` passed first.
fn wait_for_port(port: u16, process: &mut Child, limit: Duration) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return true;
        }
        if let Ok(Some(_)) = process.try_wait() {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

/// A fresh private directory under the system's temporary one, removed by [`ScratchDir`]'s
/// drop.
#[derive(Debug)]
struct ScratchDir(PathBuf);

impl ScratchDir {
    fn new(what: &str) -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "acp-{what}-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("create {}: {e}", dir.display()));
        Self(dir)
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The user and group ids of the unprivileged `postgres` account (of the Debian package), from
/// `/etc/passwd`.
fn postgres_account() -> Option<(u32, u32)> {
    let passwd = std::fs::read_to_string("/etc/passwd").ok()?;
    passwd.lines().find_map(|line| {
        let mut fields = line.split(':');
        (fields.next()? == "postgres").then_some(())?;
        let _password = fields.next()?;
        Some((fields.next()?.parse().ok()?, fields.next()?.parse().ok()?))
    })
}

/// Sends `signal` to `child` (when it still runs).
fn signal(child: &Child, signal: rustix::process::Signal) {
    if let Some(pid) = i32::try_from(child.id())
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    {
        let _ = rustix::process::kill_process(pid, signal);
    }
}

/// How a [`Postgres`] cluster is set up.
#[derive(Debug, Clone)]
pub struct PostgresOptions {
    /// Whether the server syncs its writes to disk (`fsync`, `synchronous_commit`). Off by
    /// default: the tests kill agents, not the database, and a synced cluster is slower to
    /// create and to write to. On for a test that measures what durable writes cost.
    pub fsync: bool,
    /// The most connections the server accepts (`max_connections`).
    pub max_connections: u32,
}

impl Default for PostgresOptions {
    fn default() -> Self {
        Self {
            fsync: false,
            max_connections: 100,
        }
    }
}

/// A throwaway PostgreSQL cluster: `initdb` in a temporary directory (run as the unprivileged
/// `postgres` account when the test runs as root, since the server refuses root), the server
/// on a free port of 127.0.0.1 (and its unix socket in that directory), trusting the local
/// role [`POSTGRES_USER`]. Dropping it shuts the server down (fast shutdown, SIGKILL past a
/// deadline) and removes the directory.
#[derive(Debug)]
pub struct Postgres {
    server: Option<Child>,
    bin: PathBuf,
    port: u16,
    // Last: removed after the server stopped.
    dir: ScratchDir,
}

impl Postgres {
    /// A cluster with the default [`PostgresOptions`]; `None` (after a loud notice) when
    /// PostgreSQL is not installed, outside CI.
    ///
    /// # Panics
    ///
    /// When the cluster cannot be created or started (with the server's log), and under CI
    /// when PostgreSQL is not installed.
    pub fn start() -> Option<Self> {
        Self::start_with(&PostgresOptions::default())
    }

    /// A cluster set up as `options` say; `None` (after a loud notice) when PostgreSQL is not
    /// installed, outside CI.
    ///
    /// # Panics
    ///
    /// As [`start`](Self::start).
    pub fn start_with(options: &PostgresOptions) -> Option<Self> {
        let dirs = postgres_dirs();
        let initdb = required("initdb", "postgresql", &dirs)?;
        // The real directory, where the server's other programs are (PATH may hold links).
        let initdb = std::fs::canonicalize(&initdb).unwrap_or(initdb);
        let bin = initdb
            .parent()
            .expect("initdb lives in a directory")
            .to_path_buf();
        let postgres = bin.join("postgres");
        assert!(
            postgres.is_file(),
            "no `postgres` beside {}",
            initdb.display()
        );
        let dir = ScratchDir::new("postgres");
        let account = if rustix::process::getuid().is_root() {
            let account = postgres_account().unwrap_or_else(|| {
                panic!(
                    "running as root, PostgreSQL needs the unprivileged `postgres` account of \
                     the Debian package, which /etc/passwd does not have"
                )
            });
            // The account must own what its server writes (data, socket, log).
            std::os::unix::fs::chown(&dir.0, Some(account.0), Some(account.1))
                .unwrap_or_else(|e| panic!("chown {}: {e}", dir.0.display()));
            Some(account)
        } else {
            None
        };
        let data = dir.0.join("data");
        let init = output_with_deadline(
            as_account(&initdb, account)
                .arg("--pgdata")
                .arg(&data)
                .args(["--username", POSTGRES_USER, "--auth", "trust"])
                .args(["--encoding", "UTF8", "--no-locale", "--no-sync"]),
            SERVICE_TIMEOUT,
        );
        assert!(
            init.status.success(),
            "initdb failed ({}):\n{}{}",
            init.status,
            String::from_utf8_lossy(&init.stdout),
            String::from_utf8_lossy(&init.stderr)
        );
        // A port taken between the probe and the bind fails the start: try a few.
        for _ in 0..5 {
            let port = free_port();
            let log = dir.0.join(format!("server-{port}.log"));
            let log_file = std::fs::File::create(&log)
                .unwrap_or_else(|e| panic!("create {}: {e}", log.display()));
            if let Some((uid, gid)) = account {
                let _ = std::os::unix::fs::chown(&log, Some(uid), Some(gid));
            }
            let sync = if options.fsync { "on" } else { "off" };
            let mut server = as_account(&postgres, account)
                .arg("-D")
                .arg(&data)
                .args(["-h", "127.0.0.1", "-p", &port.to_string(), "-k"])
                .arg(&dir.0)
                .args(["-c", &format!("fsync={sync}")])
                .args(["-c", &format!("synchronous_commit={sync}")])
                .args(["-c", &format!("full_page_writes={sync}")])
                .args([
                    "-c",
                    &format!("max_connections={}", options.max_connections),
                ])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(log_file)
                .spawn()
                .unwrap_or_else(|e| panic!("cannot start {}: {e}", postgres.display()));
            if wait_ready(&log, &mut server, SERVICE_TIMEOUT) {
                return Some(Self {
                    server: Some(server),
                    bin,
                    port,
                    dir,
                });
            }
            let text = std::fs::read_to_string(&log).unwrap_or_default();
            let _ = server.kill();
            let _ = server.wait();
            if !text.contains("could not bind") && !text.contains("could not create listen") {
                panic!("the PostgreSQL server did not start within {SERVICE_TIMEOUT:?}:\n{text}");
            }
        }
        panic!("the PostgreSQL server found no free port of 127.0.0.1");
    }

    /// The TCP port of 127.0.0.1 it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The URL of database `database`: `postgres://acp@127.0.0.1:PORT/DATABASE`.
    pub fn url(&self, database: &str) -> String {
        format!(
            "postgres://{POSTGRES_USER}@127.0.0.1:{}/{database}",
            self.port
        )
    }

    /// Creates the empty database `name` (a fresh one per test keeps tests apart) and returns
    /// its URL.
    ///
    /// # Panics
    ///
    /// When `createdb` fails (the name is taken, the server is gone).
    pub fn create_database(&self, name: &str) -> String {
        let created = output_with_deadline(
            Command::new(self.bin.join("createdb"))
                .args(["-h", "127.0.0.1", "-p", &self.port.to_string()])
                .args(["-U", POSTGRES_USER, name]),
            SERVICE_TIMEOUT,
        );
        assert!(
            created.status.success(),
            "createdb {name} failed: {}",
            String::from_utf8_lossy(&created.stderr)
        );
        self.url(name)
    }

    /// Runs one SQL command with `psql` in `database` and returns its unaligned output
    /// (`psql -At`), to look at what a program stored.
    ///
    /// # Panics
    ///
    /// When `psql` is missing or the command fails.
    pub fn query(&self, database: &str, sql: &str) -> String {
        let psql = find_program("psql", std::slice::from_ref(&self.bin))
            .expect("psql beside the server or on PATH");
        let out = output_with_deadline(
            Command::new(psql)
                .args(["-h", "127.0.0.1", "-p", &self.port.to_string()])
                .args(["-U", POSTGRES_USER, "-d", database, "-At", "-v"])
                .arg("ON_ERROR_STOP=1")
                .args(["-c", sql]),
            SERVICE_TIMEOUT,
        );
        assert!(
            out.status.success(),
            "psql {sql:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The server's log so far (to explain a failure).
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.0.join(format!("server-{}.log", self.port)))
            .unwrap_or_default()
    }
}

/// A command of `program`, run as `account` when one is given (the test runs as root).
fn as_account(program: &Path, account: Option<(u32, u32)>) -> Command {
    use std::os::unix::process::CommandExt as _;
    let mut command = Command::new(program);
    if let Some((uid, gid)) = account {
        // The group first: once the user is dropped, the group cannot be changed.
        command.gid(gid).uid(uid);
        // Root's HOME and working directory may be unreadable to the account.
        command.env("HOME", "/tmp").current_dir("/");
    }
    command
}

/// Waits for the server's "ready to accept connections" line in its log; false when it exited
/// or `limit` passed first.
fn wait_ready(log: &Path, server: &mut Child, limit: Duration) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if let Ok(file) = std::fs::File::open(log)
            && BufReader::new(file)
                .lines()
                .map_while(Result::ok)
                .any(|line| line.contains("ready to accept connections"))
        {
            return true;
        }
        if let Ok(Some(_)) = server.try_wait() {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

impl Drop for Postgres {
    fn drop(&mut self) {
        let Some(mut server) = self.server.take() else {
            return;
        };
        // SIGINT is PostgreSQL's fast shutdown: it ends the sessions and stops at once.
        signal(&server, rustix::process::Signal::INT);
        let start = Instant::now();
        while start.elapsed() < SERVICE_TIMEOUT {
            if let Ok(Some(_)) = server.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = server.kill();
        let _ = server.wait();
    }
}

/// An HAProxy load balancer in the foreground (`haproxy -db`), listening on a free port of
/// 127.0.0.1 with the configuration a test gives it; killed when dropped, its directory
/// removed.
#[derive(Debug)]
pub struct Haproxy {
    process: Option<Child>,
    port: u16,
    // Last: removed after the process is gone.
    dir: ScratchDir,
}

impl Haproxy {
    /// Starts HAProxy with the configuration `config(port)` returns for the free port `port`
    /// it must bind (`bind 127.0.0.1:{port}`), after checking it with `haproxy -c`; waits
    /// until the port accepts connections. `None` (after a loud notice) when HAProxy is not
    /// installed, outside CI.
    ///
    /// # Panics
    ///
    /// When the configuration is invalid or HAProxy does not start (with its output), and
    /// under CI when HAProxy is not installed.
    pub fn start(config: impl FnOnce(u16) -> String) -> Option<Self> {
        let haproxy = required("haproxy", "haproxy", &[PathBuf::from("/usr/sbin")])?;
        let dir = ScratchDir::new("haproxy");
        let port = free_port();
        let path = dir.0.join("haproxy.cfg");
        std::fs::write(&path, config(port))
            .unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
        let check = output_with_deadline(
            Command::new(&haproxy).arg("-c").arg("-f").arg(&path),
            SERVICE_TIMEOUT,
        );
        assert!(
            check.status.success(),
            "HAProxy rejects the configuration:\n{}{}",
            String::from_utf8_lossy(&check.stdout),
            String::from_utf8_lossy(&check.stderr)
        );
        let log = dir.0.join("haproxy.log");
        let log_file =
            std::fs::File::create(&log).unwrap_or_else(|e| panic!("create {}: {e}", log.display()));
        let mut process = Command::new(&haproxy)
            .arg("-db")
            .arg("-f")
            .arg(&path)
            .stdin(Stdio::null())
            .stdout(
                log_file
                    .try_clone()
                    .unwrap_or_else(|e| panic!("{}: {e}", log.display())),
            )
            .stderr(log_file)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", haproxy.display()));
        if !wait_for_port(port, &mut process, SERVICE_TIMEOUT) {
            let _ = process.kill();
            let _ = process.wait();
            panic!(
                "HAProxy did not listen on 127.0.0.1:{port} within {SERVICE_TIMEOUT:?}:\n{}",
                std::fs::read_to_string(&log).unwrap_or_default()
            );
        }
        Some(Self {
            process: Some(process),
            port,
            dir,
        })
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// What HAProxy wrote so far (warnings, alerts), to explain a failure.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.0.join("haproxy.log")).unwrap_or_default()
    }
}

impl Drop for Haproxy {
    fn drop(&mut self) {
        if let Some(mut process) = self.process.take() {
            // SIGKILL cannot be ignored: the wait is short.
            let _ = process.kill();
            let _ = process.wait();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_throwaway_cluster_serves_queries_directly_and_through_haproxy() {
        let Some(postgres) = Postgres::start() else {
            return;
        };
        let url = postgres.create_database("probe");
        assert_eq!(
            url,
            format!("postgres://acp@127.0.0.1:{}/probe", postgres.port())
        );
        postgres.query(
            "probe",
            "CREATE TABLE t (n int); INSERT INTO t VALUES (41), (1)",
        );
        assert_eq!(postgres.query("probe", "SELECT sum(n) FROM t").trim(), "42");

        // HAProxy in TCP mode in front of it: the same database through the balancer's port.
        let target = postgres.port();
        let Some(haproxy) = Haproxy::start(|port| {
            format!(
                "defaults\n    mode tcp\n    timeout connect 5s\n    timeout client 30s\n    \
                 timeout server 30s\nlisten pg\n    bind 127.0.0.1:{port}\n    server db \
                 127.0.0.1:{target}\n"
            )
        }) else {
            return;
        };
        let psql = find_program("psql", std::slice::from_ref(&postgres.bin)).unwrap();
        let out = output_with_deadline(
            Command::new(psql)
                .args(["-h", "127.0.0.1", "-p", &haproxy.port().to_string()])
                .args([
                    "-U",
                    POSTGRES_USER,
                    "-d",
                    "probe",
                    "-At",
                    "-c",
                    "SELECT count(*) FROM t",
                ]),
            SERVICE_TIMEOUT,
        );
        assert!(
            out.status.success(),
            "{}{}",
            String::from_utf8_lossy(&out.stderr),
            haproxy.log()
        );
        assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "2");

        // Dropped: the server is gone and its files with it.
        let dir = postgres.dir.0.clone();
        drop(postgres);
        assert!(!dir.exists(), "{} is left behind", dir.display());
        assert!(TcpStream::connect(("127.0.0.1", target)).is_err());
    }

    #[test]
    fn an_invalid_haproxy_configuration_is_refused_with_haproxys_words() {
        if find_program("haproxy", &[PathBuf::from("/usr/sbin")]).is_none() && !in_ci() {
            return;
        }
        let refused =
            std::panic::catch_unwind(|| Haproxy::start(|_| "frontend\n  nonsense\n".into()));
        let message = refused.expect_err("an invalid configuration must fail the start");
        let text = message
            .downcast_ref::<String>()
            .cloned()
            .unwrap_or_default();
        assert!(text.contains("HAProxy rejects the configuration"), "{text}");
    }
}
