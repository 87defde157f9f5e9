//! Tool vectors on disk: embedding a large catalogue takes minutes (Microsoft Graph's 22,000
//! tools), so each server and `mcpgen search` reuses the vectors an earlier run made with the same
//! model of the same texts. One file per (model, texts) pair, named by their SHA-256; a file that
//! does not read back whole is ignored and made again.

use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"MCPGENV1";

/// The cache directory: `$MCPGEN_CACHE_DIR`, else `$XDG_CACHE_HOME/mcpgen`, else
/// `$HOME/.cache/mcpgen`; `None` when none of them is set.
pub fn default_dir() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    var("MCPGEN_CACHE_DIR")
        .or_else(|| var("XDG_CACHE_HOME").map(|d| d.join("mcpgen")))
        .or_else(|| var("HOME").map(|d| d.join(".cache/mcpgen")))
}

/// What names the vectors of `texts` made by the model with this fingerprint.
pub fn key(fingerprint: &[u8; 32], texts: &[String]) -> String {
    let mut digest = ring::digest::Context::new(&ring::digest::SHA256);
    digest.update(MAGIC);
    digest.update(fingerprint);
    for t in texts {
        digest.update(&(t.len() as u64).to_le_bytes());
        digest.update(t.as_bytes());
    }
    digest.finish().as_ref().iter().map(|b| format!("{b:02x}")).collect()
}

fn file(dir: &Path, key: &str) -> PathBuf {
    dir.join("embeddings").join(format!("{key}.bin"))
}

/// The cached vectors, one after another, when there is a whole file of `count` vectors of `dim`.
pub fn read(dir: &Path, key: &str, dim: usize, count: usize) -> Option<Vec<f32>> {
    let bytes = std::fs::read(file(dir, key)).ok()?;
    let body = bytes.strip_prefix(MAGIC)?;
    let (header, data) = body.split_at_checked(8)?;
    let word = |at: usize| header.get(at..at + 4).and_then(|b| b.try_into().ok()).map(u32::from_le_bytes);
    if word(0)? as usize != dim || word(4)? as usize != count || data.len() != dim * count * 4 {
        return None;
    }
    Some(data.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect())
}

/// Stores `count` vectors of `dim`, one after another (written aside, then renamed: a reader never
/// sees half a file). A cache that cannot be written is only a slower next start: said at debug
/// level.
pub fn write(dir: &Path, key: &str, dim: usize, vectors: &[f32]) {
    let count = vectors.len().checked_div(dim).unwrap_or(0);
    let path = file(dir, key);
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    let result = (|| {
        std::fs::create_dir_all(path.parent().unwrap_or(dir))?;
        let mut bytes = Vec::with_capacity(16 + vectors.len() * 4);
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&(dim as u32).to_le_bytes());
        bytes.extend_from_slice(&(count as u32).to_le_bytes());
        vectors.iter().for_each(|v| bytes.extend_from_slice(&v.to_le_bytes()));
        std::fs::write(&tmp, bytes)?;
        std::fs::rename(&tmp, &path)
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        tracing::debug!(path = %path.display(), error = %e, "search model: vectors not cached");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_read_back_as_written() {
        let dir = tempfile::tempdir().unwrap();
        let vectors = vec![1.0, 0.0, 0.6, -0.8];
        let k = key(&[7; 32], &["a".into(), "b".into()]);
        assert!(read(dir.path(), &k, 2, 2).is_none());
        write(dir.path(), &k, 2, &vectors);
        assert_eq!(read(dir.path(), &k, 2, 2), Some(vectors));
        // Another shape is another cache.
        assert!(read(dir.path(), &k, 2, 3).is_none());
        assert!(read(dir.path(), &k, 4, 1).is_none());
    }

    #[test]
    fn a_cut_file_is_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let k = key(&[0; 32], &[]);
        write(dir.path(), &k, 2, &[1.0, 0.0]);
        let path = file(dir.path(), &k);
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
        assert!(read(dir.path(), &k, 2, 1).is_none());
    }

    #[test]
    fn the_key_depends_on_model_and_every_text() {
        let texts = ["a".to_string(), "bc".to_string()];
        let k = key(&[1; 32], &texts);
        assert_ne!(k, key(&[2; 32], &texts));
        assert_ne!(k, key(&[1; 32], &["ab".to_string(), "c".to_string()]));
        assert_eq!(k.len(), 64);
    }
}
