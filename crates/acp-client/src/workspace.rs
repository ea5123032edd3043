//! A directory served to the agent (`fs/read_text_file`, `fs/write_text_file`): a ready-made
//! implementation of the two file methods of [`Client`](crate::Client), confined to one root.
//!
//! ```no_run
//! use acp_client::{Client, Workspace};
//! use acp_types::*;
//!
//! # #[allow(dead_code)]
//! struct Editor {
//!     workspace: Workspace,
//! }
//!
//! #[acp_client::async_trait]
//! impl Client for Editor {
//!     # async fn request_permission(&self, _: RequestPermissionRequest) -> Result<RequestPermissionResponse> {
//!     #     Ok(RequestPermissionResponse::new(RequestPermissionOutcome::cancelled()))
//!     # }
//!     # async fn session_notification(&self, _: SessionNotification) -> Result<()> { Ok(()) }
//!     async fn read_text_file(&self, r: ReadTextFileRequest) -> Result<ReadTextFileResponse> {
//!         self.workspace.read(&r).await
//!     }
//!     async fn write_text_file(&self, r: WriteTextFileRequest) -> Result<WriteTextFileResponse> {
//!         self.workspace.write(&r).await
//!     }
//! }
//! ```
//!
//! Paths must be absolute, as the protocol says. They are resolved with symbolic links
//! followed, so a link inside the root that points outside does not get out; anything that
//! ends up outside the root is refused (`-32602`, naming the root). Reads honour `line`
//! (1-based) and `limit` (a number of lines), refuse text that is not UTF-8 and files larger
//! than [`max_file_bytes`](Workspace::max_file_bytes) (16 MiB by default: an answer must fit
//! in a message). Writes create missing directories inside the root and replace the file
//! through a temporary one, so a reader never sees half a file.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use acp_types::*;

/// The largest file [`Workspace::read`] reads by default: 16 MiB.
pub const DEFAULT_MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// The directory a client serves to its agent (see the [module](self) docs).
#[derive(Debug, Clone)]
pub struct Workspace {
    root: PathBuf,
    read_only: bool,
    max_file_bytes: u64,
}

impl Workspace {
    /// Serves `root` (made canonical), for reading and writing.
    ///
    /// # Errors
    ///
    /// When `root` does not exist or cannot be resolved.
    pub fn new(root: impl AsRef<Path>) -> io::Result<Self> {
        Ok(Self {
            root: root.as_ref().canonicalize()?,
            read_only: false,
            max_file_bytes: DEFAULT_MAX_FILE_BYTES,
        })
    }

    /// With `read_only`, every write is refused (`-32600`, saying so). Advertise
    /// `fs.writeTextFile` only without it.
    #[must_use]
    pub fn read_only(mut self, read_only: bool) -> Self {
        self.read_only = read_only;
        self
    }

    /// Reads of files larger than `bytes` are refused (`-32602`, naming both sizes).
    #[must_use]
    pub fn max_file_bytes(mut self, bytes: u64) -> Self {
        self.max_file_bytes = bytes;
        self
    }

    /// The canonical directory served.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Whether writes are refused.
    pub fn is_read_only(&self) -> bool {
        self.read_only
    }

    /// `path` for people: relative to the root when inside it (`.` for the root itself).
    pub fn display(&self, path: &str) -> String {
        match Path::new(path).strip_prefix(&self.root) {
            Ok(relative) if relative.as_os_str().is_empty() => ".".to_owned(),
            Ok(relative) => relative.display().to_string(),
            Err(_) => path.to_owned(),
        }
    }

    /// `fs/read_text_file`: the file's text, from `line` (1-based) for `limit` lines.
    ///
    /// # Errors
    ///
    /// `-32602` when the path is relative or outside the root, the file is too large, not a
    /// file, or not UTF-8 text; `-32002` when it does not exist; `-32603` when reading fails.
    pub async fn read(
        &self,
        request: &ReadTextFileRequest,
    ) -> Result<ReadTextFileResponse, ErrorObject> {
        let path = self.resolve_existing(&request.path)?;
        let shown = &request.path;
        let metadata = tokio::fs::metadata(&path)
            .await
            .map_err(|e| io_error(shown, &e))?;
        if !metadata.is_file() {
            return Err(ErrorObject::invalid_params(format_args!(
                "`{shown}` is not a file"
            )));
        }
        if metadata.len() > self.max_file_bytes {
            return Err(ErrorObject::invalid_params(format_args!(
                "`{shown}` is {} bytes, more than the client serves ({} bytes)",
                metadata.len(),
                self.max_file_bytes
            )));
        }
        let bytes = tokio::fs::read(&path)
            .await
            .map_err(|e| io_error(shown, &e))?;
        let text = String::from_utf8(bytes).map_err(|e| {
            ErrorObject::invalid_params(format_args!(
                "`{shown}` is not UTF-8 text (invalid byte at offset {})",
                e.utf8_error().valid_up_to()
            ))
        })?;
        Ok(ReadTextFileResponse::new(lines(
            text,
            request.line,
            request.limit,
        )))
    }

    /// `fs/write_text_file`: writes the file whole, creating it and missing directories inside
    /// the root. The content goes to a temporary file beside it first, then replaces it.
    ///
    /// # Errors
    ///
    /// `-32600` when the workspace is read-only; `-32602` when the path is relative or outside
    /// the root; `-32603` when writing fails.
    pub async fn write(
        &self,
        request: &WriteTextFileRequest,
    ) -> Result<WriteTextFileResponse, ErrorObject> {
        let shown = &request.path;
        if self.read_only {
            return Err(ErrorObject::invalid_request(format_args!(
                "the client is read-only: it refuses to write `{shown}`"
            )));
        }
        let path = self.resolve_for_write(shown)?;
        if let Some(parent) = path.parent() {
            tokio::fs::create_dir_all(parent)
                .await
                .map_err(|e| io_error(shown, &e))?;
        }
        let temporary = temporary_beside(&path);
        let written = async {
            tokio::fs::write(&temporary, request.content.as_bytes()).await?;
            tokio::fs::rename(&temporary, &path).await
        }
        .await;
        if let Err(e) = written {
            let _ = tokio::fs::remove_file(&temporary).await;
            return Err(io_error(shown, &e));
        }
        Ok(WriteTextFileResponse::new())
    }

    /// An existing path inside the root, symbolic links resolved (for a terminal's `cwd`, say).
    ///
    /// # Errors
    ///
    /// `-32602` when the path is relative or outside the root; `-32002` when it does not exist.
    pub fn resolve_existing(&self, path: &str) -> Result<PathBuf, ErrorObject> {
        let absolute = absolute(path)?;
        let real = absolute.canonicalize().map_err(|e| io_error(path, &e))?;
        self.inside(path, real)
    }

    /// A path to write inside the root: its deepest existing ancestor is resolved (symbolic
    /// links included, a dangling one too), and what follows may only name new entries.
    ///
    /// # Errors
    ///
    /// `-32602` when the path is relative or leads outside the root.
    pub fn resolve_for_write(&self, path: &str) -> Result<PathBuf, ErrorObject> {
        let absolute = absolute(path)?;
        let mut existing = absolute.as_path();
        let mut rest = Vec::new();
        // `symlink_metadata`: a dangling link counts as existing, and is then resolved (or
        // refused) by `canonicalize`.
        while existing.symlink_metadata().is_err() {
            let (Some(parent), Some(name)) = (existing.parent(), existing.file_name()) else {
                break;
            };
            rest.push(name.to_owned());
            existing = parent;
        }
        // `file_name` is `None` for a path ending in `..`: such a path stops the walk above
        // and is resolved by `canonicalize` below; a `..` among the new entries is refused.
        if rest.iter().any(|name| name == "..") {
            return Err(self.outside(path));
        }
        let mut real = existing.canonicalize().map_err(|e| io_error(path, &e))?;
        real.extend(rest.iter().rev());
        self.inside(path, real)
    }

    fn inside(&self, original: &str, real: PathBuf) -> Result<PathBuf, ErrorObject> {
        if real.starts_with(&self.root) {
            Ok(real)
        } else {
            Err(self.outside(original))
        }
    }

    fn outside(&self, path: &str) -> ErrorObject {
        ErrorObject::invalid_params(format_args!(
            "`{path}` is outside the client's workspace {}: the client only serves files \
             inside it",
            self.root.display()
        ))
    }
}

/// `text` from `line` (1-based; 0 counts as 1) for `limit` lines, line ends kept.
fn lines(text: String, line: Option<u32>, limit: Option<u32>) -> String {
    let skip = line.map_or(0, |l| l.saturating_sub(1) as usize);
    let take = limit.map_or(usize::MAX, |l| l as usize);
    if skip == 0 && take == usize::MAX {
        return text;
    }
    text.split_inclusive('\n').skip(skip).take(take).collect()
}

/// A fresh name beside `path` for the content before it replaces the file.
fn temporary_beside(path: &Path) -> PathBuf {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    path.with_file_name(format!(
        ".{name}.acp-{}-{}.tmp",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ))
}

fn absolute(path: &str) -> Result<PathBuf, ErrorObject> {
    let p = Path::new(path);
    if p.is_absolute() {
        Ok(p.to_path_buf())
    } else {
        Err(ErrorObject::invalid_params(format_args!(
            "`{path}` is not an absolute path (ACP file paths are absolute)"
        )))
    }
}

fn io_error(path: &str, error: &io::Error) -> ErrorObject {
    if error.kind() == io::ErrorKind::NotFound {
        let mut e = ErrorObject::resource_not_found(path);
        e.message = format!("`{path}` does not exist");
        e
    } else {
        ErrorObject::internal_error(format_args!("`{path}`: {error}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh root holding `a.txt` (three lines) and `sub/`.
    fn temp_root(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("acp-ws-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(dir.join("a.txt"), "one\ntwo\nthree\n").unwrap();
        dir
    }

    fn read(ws: &Workspace, name: &str) -> ReadTextFileRequest {
        ReadTextFileRequest::new("s", ws.root().join(name).display().to_string())
    }

    #[tokio::test]
    async fn reads_honour_line_and_limit() {
        let dir = temp_root("read");
        let ws = Workspace::new(&dir).unwrap();
        let mut request = read(&ws, "a.txt");
        assert_eq!(
            ws.read(&request).await.unwrap().content,
            "one\ntwo\nthree\n"
        );
        request.line = Some(2);
        request.limit = Some(1);
        assert_eq!(ws.read(&request).await.unwrap().content, "two\n");
        request.line = Some(0);
        assert_eq!(ws.read(&request).await.unwrap().content, "one\n");
        request.line = Some(9);
        assert_eq!(ws.read(&request).await.unwrap().content, "");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[tokio::test]
    async fn reads_refuse_what_is_not_a_small_text_file() {
        let dir = temp_root("refuse");
        std::fs::write(dir.join("blob.bin"), [b'o', b'k', 0xff, 0xfe]).unwrap();
        let ws = Workspace::new(&dir).unwrap().max_file_bytes(10);
        let refused = |request: ReadTextFileRequest| {
            let ws = ws.clone();
            async move { ws.read(&request).await.unwrap_err() }
        };
        let error = refused(read(&ws, "a.txt")).await;
        assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
        assert!(error.message.contains("14 bytes"), "{}", error.message);
        let error = refused(read(&ws, "blob.bin")).await;
        assert!(
            error
                .message
                .contains("not UTF-8 text (invalid byte at offset 2)")
        );
        let error = refused(read(&ws, "sub")).await;
        assert!(error.message.contains("is not a file"), "{}", error.message);
        let error = refused(read(&ws, "missing.txt")).await;
        assert_eq!(error.code, ErrorCode::RESOURCE_NOT_FOUND);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[tokio::test]
    async fn writes_create_directories_and_replace_the_file_whole() {
        let dir = temp_root("write");
        let ws = Workspace::new(&dir).unwrap();
        let path = ws.root().join("sub/new/b.txt").display().to_string();
        ws.write(&WriteTextFileRequest::new("s", path.as_str(), "first"))
            .await
            .unwrap();
        ws.write(&WriteTextFileRequest::new("s", path.as_str(), "second"))
            .await
            .unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "second");
        // No temporary file is left beside it.
        let names: Vec<_> = std::fs::read_dir(dir.join("sub/new"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["b.txt"]);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn paths_outside_the_root_are_refused() {
        let dir = temp_root("outside");
        let ws = Workspace::new(&dir).unwrap();
        let root = ws.root().display().to_string();
        assert!(ws.resolve_existing(&format!("{root}/a.txt")).is_ok());
        assert!(ws.resolve_existing("a.txt").is_err(), "relative");
        assert!(
            ws.resolve_existing(&format!("{root}/../")).is_err(),
            "dot-dot"
        );
        assert!(
            ws.resolve_for_write(&format!("{root}/new/../../x"))
                .is_err()
        );
        assert!(
            ws.resolve_for_write(&format!("{root}/sub/new/file.txt"))
                .is_ok()
        );
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("/", dir.join("escape")).unwrap();
            assert!(ws.resolve_existing(&format!("{root}/escape/etc")).is_err());
            assert!(
                ws.resolve_for_write(&format!("{root}/escape/tmp/x"))
                    .is_err()
            );
            // A dangling link pointing outside is no way out either.
            std::os::unix::fs::symlink("/nonexistent-acp-dir/x", dir.join("dangling")).unwrap();
            assert!(ws.resolve_for_write(&format!("{root}/dangling")).is_err());
        }
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[tokio::test]
    async fn read_only_refuses_writes() {
        let dir = temp_root("ro");
        let ws = Workspace::new(&dir).unwrap().read_only(true);
        let path = ws.root().join("a.txt").display().to_string();
        let request = WriteTextFileRequest::new("s", path.as_str(), "x");
        let error = ws.write(&request).await.unwrap_err();
        assert_eq!(error.code, ErrorCode::INVALID_REQUEST);
        assert!(error.to_string().contains("read-only"), "{error}");
        assert_eq!(
            std::fs::read_to_string(dir.join("a.txt")).unwrap(),
            "one\ntwo\nthree\n"
        );
        std::fs::remove_dir_all(dir).unwrap();
    }
}
