//! The client's working directory: the only place where it lets an agent read and write files
//! (`fs/read_text_file`, `fs/write_text_file`) and run commands.
//!
//! Paths must be absolute. They are resolved with symbolic links followed (so a link that
//! points outside does not get out), and anything that ends up outside the directory is
//! refused with an error saying so.

use std::io;
use std::path::{Path, PathBuf};

use acp_types::{ErrorObject, ReadTextFileRequest, WriteTextFileRequest};

/// The directory the client serves, and whether writes are allowed.
#[derive(Debug, Clone)]
pub struct Workspace {
    root: PathBuf,
    read_only: bool,
}

impl Workspace {
    /// Serves `root` (made canonical); `read_only` refuses every write.
    ///
    /// # Errors
    ///
    /// When `root` does not exist.
    pub fn new(root: &Path, read_only: bool) -> io::Result<Self> {
        Ok(Self {
            root: root.canonicalize()?,
            read_only,
        })
    }

    /// The canonical directory served.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `path` for people: relative to the root when inside it.
    pub fn display(&self, path: &str) -> String {
        match Path::new(path).strip_prefix(&self.root) {
            Ok(rel) if rel.as_os_str().is_empty() => ".".to_owned(),
            Ok(rel) => rel.display().to_string(),
            Err(_) => path.to_owned(),
        }
    }

    /// Reads a text file, honouring `line` (1-based) and `limit` (a number of lines).
    ///
    /// # Errors
    ///
    /// When the path is refused, missing, or not UTF-8 text.
    pub async fn read(&self, request: &ReadTextFileRequest) -> Result<String, ErrorObject> {
        let path = self.resolve_existing(&request.path)?;
        let bytes = tokio::fs::read(&path)
            .await
            .map_err(|e| io_error(&request.path, &e))?;
        let text = String::from_utf8(bytes).map_err(|_| {
            ErrorObject::invalid_params(format_args!("`{}` is not UTF-8 text", request.path))
        })?;
        let skip = request
            .line
            .map_or(0, |line| line.saturating_sub(1) as usize);
        let take = request.limit.map_or(usize::MAX, |limit| limit as usize);
        if skip == 0 && take == usize::MAX {
            return Ok(text);
        }
        Ok(text.split_inclusive('\n').skip(skip).take(take).collect())
    }

    /// Writes a text file, creating it (and missing parent directories inside the root).
    ///
    /// # Errors
    ///
    /// When writes are refused (`--read-only`), the path is refused, or writing fails.
    pub async fn write(&self, request: &WriteTextFileRequest) -> Result<(), ErrorObject> {
        if self.read_only {
            return Err(ErrorObject::invalid_request(format_args!(
                "the client is read-only (--read-only): it refuses to write `{}`",
                request.path
            )));
        }
        let path = self.resolve_for_write(&request.path)?;
        if let Some(parent) = path.parent() {
            tokio::fs::create_dir_all(parent)
                .await
                .map_err(|e| io_error(&request.path, &e))?;
        }
        tokio::fs::write(&path, request.content.as_bytes())
            .await
            .map_err(|e| io_error(&request.path, &e))
    }

    /// An existing path inside the root, symbolic links resolved.
    ///
    /// # Errors
    ///
    /// When the path is relative, missing, or outside the root.
    pub fn resolve_existing(&self, path: &str) -> Result<PathBuf, ErrorObject> {
        let absolute = absolute(path)?;
        let real = absolute.canonicalize().map_err(|e| io_error(path, &e))?;
        self.inside(path, real)
    }

    /// A path to write: the nearest existing ancestor is resolved (symbolic links included),
    /// and what follows it may only name new entries (no `..`).
    ///
    /// # Errors
    ///
    /// When the path is relative or leads outside the root.
    pub fn resolve_for_write(&self, path: &str) -> Result<PathBuf, ErrorObject> {
        let absolute = absolute(path)?;
        let mut existing = absolute.as_path();
        let mut rest = Vec::new();
        // Walk up to the deepest ancestor that exists (`symlink_metadata`, so that a dangling
        // link counts as existing and is then resolved, or refused, by `canonicalize`).
        while existing.symlink_metadata().is_err() {
            let (Some(parent), Some(name)) = (existing.parent(), existing.file_name()) else {
                break;
            };
            rest.push(name.to_owned());
            existing = parent;
        }
        if rest.iter().any(|name| name == "..") {
            return Err(outside(path, &self.root));
        }
        let mut real = existing.canonicalize().map_err(|e| io_error(path, &e))?;
        real.extend(rest.iter().rev());
        self.inside(path, real)
    }

    fn inside(&self, original: &str, real: PathBuf) -> Result<PathBuf, ErrorObject> {
        if real.starts_with(&self.root) {
            Ok(real)
        } else {
            Err(outside(original, &self.root))
        }
    }
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

fn outside(path: &str, root: &Path) -> ErrorObject {
    ErrorObject::invalid_params(format_args!(
        "`{path}` is outside the client's working directory {}: the client only serves files \
         inside it",
        root.display()
    ))
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

    fn temp_root(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("acp-ws-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(dir.join("a.txt"), "one\ntwo\nthree\n").unwrap();
        dir
    }

    #[tokio::test]
    async fn reads_honour_line_and_limit() {
        let dir = temp_root("read");
        let ws = Workspace::new(&dir, false).unwrap();
        let path = ws.root().join("a.txt").display().to_string();
        let mut request = ReadTextFileRequest::new("s", path.as_str());
        assert_eq!(ws.read(&request).await.unwrap(), "one\ntwo\nthree\n");
        request.line = Some(2);
        request.limit = Some(1);
        assert_eq!(ws.read(&request).await.unwrap(), "two\n");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn paths_outside_the_root_are_refused() {
        let dir = temp_root("outside");
        let ws = Workspace::new(&dir, false).unwrap();
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
        }
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[tokio::test]
    async fn read_only_refuses_writes() {
        let dir = temp_root("ro");
        let ws = Workspace::new(&dir, true).unwrap();
        let path = ws.root().join("a.txt").display().to_string();
        let request = WriteTextFileRequest::new("s", path.as_str(), "x");
        let error = ws.write(&request).await.unwrap_err();
        assert!(error.to_string().contains("read-only"), "{error}");
        std::fs::remove_dir_all(dir).unwrap();
    }
}
