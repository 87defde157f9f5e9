//! Where a command's document goes: a file, written atomically, or stdout.

use std::io::Write;
use std::path::Path;

use serde::Serialize;

use crate::error::{Error, Result};

/// Whether a file name asks for YAML (`.yaml`, `.yml`).
pub(super) fn is_yaml(path: &Path) -> bool {
    matches!(path.extension().and_then(|e| e.to_str()), Some("yaml" | "yml"))
}

/// `value` as YAML, or as pretty JSON with a final newline.
pub(super) fn render<T: Serialize>(value: &T, yaml: bool, origin: &str) -> Result<String> {
    if yaml {
        return serde_yaml::to_string(value).map_err(|e| Error::internal(format!("writing {origin} as YAML"), e));
    }
    let mut text =
        serde_json::to_string_pretty(value).map_err(|e| Error::internal(format!("writing {origin} as JSON"), e))?;
    text.push('\n');
    Ok(text)
}

/// `text` to `path` (atomically), or to stdout without one.
pub(super) fn write(path: Option<&Path>, text: &str) -> Result<()> {
    match path {
        Some(path) => write_atomically(path, text.as_bytes()),
        None => std::io::stdout().lock().write_all(text.as_bytes()).map_err(|e| write_error(Path::new("<stdout>"), e)),
    }
}

fn write_error(path: &Path, e: std::io::Error) -> Error {
    Error::io(path, "write", e)
}

/// Writes to a temporary file beside `path`, then renames it: a failure leaves nothing half-written.
pub(super) fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("out");
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = std::fs::write(&tmp, bytes).and_then(|()| std::fs::rename(&tmp, path));
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(write_error(path, e));
    }
    Ok(())
}
