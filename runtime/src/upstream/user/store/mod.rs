//! Where `--upstream-auth user` keeps each user's upstream tokens and its pending authorizations
//! (the single-use `state` of an authorization request): a [`TokenStore`] of bytes by key, some
//! with a time to live, opened from `--token-store` by [`open`]: one JSON file (`file.rs`, one
//! replica; the default) or Redis/Valkey (`redis.rs`, feature `redis-store`, shared by
//! replicas). Values are sealed before they are stored ([`Sealed`]: AES-256-GCM under
//! `MCPGEN_TOKEN_STORE_KEY`, bound to their key), so neither backend encrypts, and neither ever
//! shows a value in an error. The key layout is here, in one place ([`token_key`],
//! [`subject_prefix`], [`state_key`]).

mod file;
#[cfg(feature = "redis-store")]
pub(crate) mod redis;
mod sealed;

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

pub use file::FileStore;
pub use sealed::Sealed;

use crate::error::Error;

/// What a [`TokenStore`] operation returns: a boxed future, so that the trait is object safe.
pub type StoreFuture<'a, T> = std::pin::Pin<Box<dyn std::future::Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// Where per-user upstream tokens and pending authorizations live: bytes by key, some with a time
/// to live.
pub trait TokenStore: Send + Sync + fmt::Debug {
    /// The value under `key`, unless absent or expired.
    fn get<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<Vec<u8>>>;
    /// Sets `key` (replacing), expiring after `ttl` when given.
    fn put<'a>(&'a self, key: &'a str, value: &'a [u8], ttl: Option<std::time::Duration>) -> StoreFuture<'a, ()>;
    /// Gets and deletes `key` atomically: of two concurrent `take`s (even from two replicas) only
    /// one gets the value.
    fn take<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<Vec<u8>>>;
    /// Deletes every key starting with `prefix`; how many went.
    fn delete_prefix<'a>(&'a self, prefix: &'a str) -> StoreFuture<'a, usize>;
}

/// A token store operation that failed. Its text names the store and what failed, and says what
/// to do; it never holds a stored value.
#[derive(Debug)]
#[non_exhaustive]
pub enum StoreError {
    /// The token store file could not be read or written, or is not a token store.
    File {
        /// The file.
        path: PathBuf,
        /// What failed, and what to do.
        what: String,
    },
    /// Redis or Valkey failed or could not be reached.
    Redis {
        /// The store's URL (it never holds a password).
        url: String,
        /// What failed, and what to do.
        what: String,
    },
    /// A stored value did not open with the encryption key: written under another key, changed,
    /// or sealed with another `MCPGEN_TOKEN_STORE_KEY`.
    Decrypt,
    /// A value could not be sealed (the system's random numbers failed).
    Encrypt,
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::File { path, what } => write!(f, "token store {}: {what}", path.display()),
            StoreError::Redis { url, what } => write!(f, "token store {url}: {what}"),
            StoreError::Decrypt => write!(
                f,
                "a stored token could not be decrypted: was {KEY_ENV} changed? Values sealed under another key \
                 (or altered in the store) cannot be read; restore the key, or revoke the user's tokens \
                 (`mcpgen tokens revoke SUBJECT`) so that they authorize again"
            ),
            StoreError::Encrypt => {
                write!(
                    f,
                    "a token could not be encrypted for the token store: the system's random number generator failed"
                )
            }
        }
    }
}

impl std::error::Error for StoreError {}

/// Env var of the token store's 32-byte encryption key (base64, standard or URL-safe, padded or
/// not; or 64 hex digits).
pub const KEY_ENV: &str = "MCPGEN_TOKEN_STORE_KEY";

/// Env var of the Redis/Valkey password (never part of `--token-store`'s URL).
#[cfg(feature = "redis-store")]
pub const PASSWORD_ENV: &str = "MCPGEN_TOKEN_STORE_PASSWORD";

/// The key of `subject`'s upstream token at the API `api`:
/// `mcpgen:token:{sha256-hex(subject)}:{api}`.
pub fn token_key(subject: &str, api: &str) -> String {
    format!("{}{api}", subject_prefix(subject))
}

/// The prefix of every token key of `subject`: `mcpgen:token:{sha256-hex(subject)}:`. Revoking a
/// subject deletes it.
pub fn subject_prefix(subject: &str) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA256, subject.as_bytes());
    let mut out = String::with_capacity(13 + 64 + 1);
    out.push_str("mcpgen:token:");
    for b in digest.as_ref() {
        out.push_str(&format!("{b:02x}"));
    }
    out.push(':');
    out
}

/// The key of a pending authorization: `mcpgen:state:{state}`.
pub fn state_key(state: &str) -> String {
    format!("mcpgen:state:{state}")
}

/// The authorization `subject` began at `api` and has not completed: its URL, given again to
/// their next calls for a while (under the subject's prefix, so revoking them drops it too).
pub fn begun_key(subject: &str, api: &str) -> String {
    format!("{}{api}#begun", subject_prefix(subject))
}

/// Opens the store a `--token-store` value names: `redis://host:port[/db]` or `rediss://…`
/// (`valkey://`, `valkeys://` too; feature `redis-store`; a password inside the URL is refused:
/// `PASSWORD_ENV`, when set, is the password), otherwise a file path (optionally written
/// `file:PATH`). `env` reads an environment variable.
pub async fn open(spec: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<Arc<dyn TokenStore>, Error> {
    let spec = spec.trim();
    let scheme = spec.split_once("://").map(|(s, _)| s.to_ascii_lowercase());
    match scheme.as_deref() {
        Some("redis" | "rediss" | "valkey" | "valkeys") => open_redis(spec, env).await,
        Some(other) if !other.is_empty() && other.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c)) => {
            Err(Error::Config(format!(
                "--token-store: unknown scheme `{other}://`: give a file path (or file:PATH) or a redis:// or rediss:// URL"
            )))
        }
        _ => {
            let path = spec.strip_prefix("file:").unwrap_or(spec);
            if path.is_empty() {
                return Err(Error::Config(
                    "--token-store is empty: give a file path (or file:PATH) or a redis:// or rediss:// URL".into(),
                ));
            }
            Ok(Arc::new(FileStore::open(path)?))
        }
    }
}

#[cfg(feature = "redis-store")]
async fn open_redis(spec: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<Arc<dyn TokenStore>, Error> {
    let password = env(PASSWORD_ENV).filter(|p| !p.is_empty());
    Ok(Arc::new(self::redis::RedisStore::connect(spec, password).await?))
}

#[cfg(not(feature = "redis-store"))]
async fn open_redis(_spec: &str, _env: &dyn Fn(&str) -> Option<String>) -> Result<Arc<dyn TokenStore>, Error> {
    Err(Error::missing_feature("redis-store", "--token-store redis://…"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_laid_out_in_one_place() {
        let k = token_key("alice", "github");
        assert!(k.starts_with(&subject_prefix("alice")));
        assert!(k.ends_with(":github"));
        // sha256("alice")
        assert_eq!(
            subject_prefix("alice"),
            "mcpgen:token:2bd806c97f0e00af1a1fc3328fa763a9269723c8db8fac4f93af71db186d6e90:"
        );
        assert_ne!(subject_prefix("alice"), subject_prefix("alice2"));
        assert_eq!(state_key("abc"), "mcpgen:state:abc");
    }

    #[tokio::test]
    async fn open_refuses_unknown_schemes_and_empty_specs() {
        let none = |_: &str| None;
        let e = open("http://example.com/x", &none).await.unwrap_err().to_string();
        assert!(e.contains("unknown scheme `http://`"), "{e}");
        let e = open("file:", &none).await.unwrap_err().to_string();
        assert!(e.contains("empty"), "{e}");
    }

    #[cfg(not(feature = "redis-store"))]
    #[tokio::test]
    async fn a_redis_url_without_the_feature_names_it() {
        let e = open("redis://127.0.0.1:6379", &|_: &str| None).await.unwrap_err();
        assert!(matches!(e, Error::MissingFeature { feature: "redis-store", .. }), "{e}");
    }

    #[test]
    fn errors_say_what_to_do_and_hold_no_value() {
        let e = StoreError::Decrypt.to_string();
        assert!(e.contains("was MCPGEN_TOKEN_STORE_KEY changed?"), "{e}");
    }
}
