//! Files that are not ours: a clear error when opening, no panic, nothing written over them.

use acp_store_sqlite::SqliteBackend;

use crate::common::bounded;
use crate::scratch::Scratch;

/// Opens `path`, which must fail; returns the error's text after checking the file is as it
/// was.
async fn refused(path: &std::path::Path) -> String {
    let before = std::fs::read(path).unwrap();
    let error = SqliteBackend::open(path).await.unwrap_err();
    assert!(!error.is_transient(), "{error}");
    assert_eq!(std::fs::read(path).unwrap(), before, "the file was changed");
    error.to_string()
}

#[test]
fn a_corrupt_file_is_a_clear_error() {
    let dir = Scratch::new("corrupt");
    let path = dir.file("garbage.db");
    let bytes: Vec<u8> = (0..16_384u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    std::fs::write(&path, bytes).unwrap();
    bounded(async {
        let message = refused(&path).await;
        assert!(message.contains("is not a session database"), "{message}");
        assert!(message.contains("garbage.db"), "{message}");
    });
}

#[test]
fn another_programs_database_and_a_newer_one_are_refused() {
    let dir = Scratch::new("foreign");
    let foreign = dir.file("other.db");
    let conn = rusqlite::Connection::open(&foreign).unwrap();
    conn.execute_batch("CREATE TABLE users (name TEXT); INSERT INTO users VALUES ('x');")
        .unwrap();
    drop(conn);
    let newer = dir.file("newer.db");
    let conn = rusqlite::Connection::open(&newer).unwrap();
    conn.execute_batch("PRAGMA application_id = 1094930515; PRAGMA user_version = 99;")
        .unwrap();
    drop(conn);
    let other_app = dir.file("app.db");
    let conn = rusqlite::Connection::open(&other_app).unwrap();
    conn.execute_batch("PRAGMA application_id = 7;").unwrap();
    drop(conn);
    bounded(async {
        let message = refused(&foreign).await;
        assert!(message.contains("another program's tables"), "{message}");
        let message = refused(&newer).await;
        assert!(message.contains("newer version"), "{message}");
        let message = refused(&other_app).await;
        assert!(message.contains("application id"), "{message}");
        // A directory is not a database file either.
        let error = SqliteBackend::open(dir.file("")).await.unwrap_err();
        assert!(error.to_string().contains("session database"), "{error}");
    });
}
