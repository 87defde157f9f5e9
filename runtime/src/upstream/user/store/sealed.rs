//! Values sealed before they reach the store: AES-256-GCM (ring) under `MCPGEN_TOKEN_STORE_KEY`,
//! a fresh random 96-bit nonce per write, and the store key as associated data, so that a value
//! copied under another key (another user's) does not open. A sealed value is a version byte (1),
//! the nonce, then the ciphertext and its tag.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;
use ring::aead::{AES_256_GCM, Aad, LessSafeKey, NONCE_LEN, Nonce, UnboundKey};
use ring::rand::{SecureRandom, SystemRandom};

use super::{KEY_ENV, StoreError, TokenStore};
use crate::error::Error;

/// The first byte of a sealed value: its format.
const VERSION: u8 = 1;

/// A store whose values are sealed with AES-256-GCM (ring::aead), a fresh random 96-bit nonce per
/// write, the key used as associated data (so a value copied under another key — another user's —
/// fails to open).
pub struct Sealed {
    store: Arc<dyn TokenStore>,
    key: LessSafeKey,
    random: SystemRandom,
}

impl fmt::Debug for Sealed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sealed").field("store", &self.store).field("key", &"<redacted>").finish()
    }
}

impl Sealed {
    /// `store` sealed with the key `key_text`: 32 bytes in base64 (standard or URL-safe, padded or
    /// not) or 64 hex digits. An error never shows the key.
    pub fn new(store: Arc<dyn TokenStore>, key_text: &str) -> Result<Sealed, Error> {
        let bytes = parse_key(key_text)?;
        let key = UnboundKey::new(&AES_256_GCM, &bytes)
            .map_err(|_| Error::Config(format!("{KEY_ENV}: not a usable AES-256 key")))?;
        Ok(Sealed { store, key: LessSafeKey::new(key), random: SystemRandom::new() })
    }

    /// `store` sealed with the key in [`KEY_ENV`], which `--upstream-auth user` requires.
    pub fn from_env(store: Arc<dyn TokenStore>, env: &dyn Fn(&str) -> Option<String>) -> Result<Sealed, Error> {
        match env(KEY_ENV).filter(|k| !k.trim().is_empty()) {
            Some(text) => Sealed::new(store, &text),
            None => Err(Error::Config(format!(
                "{KEY_ENV} is not set: --upstream-auth user keeps each user's upstream tokens encrypted under it; \
                 make one with `openssl rand -base64 32` and give every replica the same one"
            ))),
        }
    }

    /// The value under `key`, opened; an error when it does not open (changed, copied from
    /// another key, or sealed under another encryption key).
    pub async fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        match self.store.get(key).await? {
            Some(sealed) => self.open(key, sealed).map(Some),
            None => Ok(None),
        }
    }

    /// Seals `plain` and stores it under `key`, expiring after `ttl` when given.
    pub async fn put(&self, key: &str, plain: &[u8], ttl: Option<Duration>) -> Result<(), StoreError> {
        let sealed = self.seal(key, plain)?;
        self.store.put(key, &sealed, ttl).await
    }

    /// Gets and deletes the value under `key` atomically ([`TokenStore::take`]), opened.
    pub async fn take(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        match self.store.take(key).await? {
            Some(sealed) => self.open(key, sealed).map(Some),
            None => Ok(None),
        }
    }

    /// Deletes every key starting with `prefix`; how many went.
    pub async fn delete_prefix(&self, prefix: &str) -> Result<usize, StoreError> {
        self.store.delete_prefix(prefix).await
    }

    /// The store underneath, whose values are sealed.
    pub fn store(&self) -> &Arc<dyn TokenStore> {
        &self.store
    }

    fn seal(&self, key: &str, plain: &[u8]) -> Result<Vec<u8>, StoreError> {
        let mut nonce = [0u8; NONCE_LEN];
        self.random.fill(&mut nonce).map_err(|_| StoreError::Encrypt)?;
        let mut body = plain.to_vec();
        self.key
            .seal_in_place_append_tag(Nonce::assume_unique_for_key(nonce), Aad::from(key.as_bytes()), &mut body)
            .map_err(|_| StoreError::Encrypt)?;
        let mut out = Vec::with_capacity(1 + NONCE_LEN + body.len());
        out.push(VERSION);
        out.extend_from_slice(&nonce);
        out.extend_from_slice(&body);
        Ok(out)
    }

    fn open(&self, key: &str, mut sealed: Vec<u8>) -> Result<Vec<u8>, StoreError> {
        if sealed.len() < 1 + NONCE_LEN + AES_256_GCM.tag_len() || sealed[0] != VERSION {
            return Err(StoreError::Decrypt);
        }
        let nonce = Nonce::try_assume_unique_for_key(&sealed[1..1 + NONCE_LEN]).map_err(|_| StoreError::Decrypt)?;
        let plain_len = self
            .key
            .open_in_place(nonce, Aad::from(key.as_bytes()), &mut sealed[1 + NONCE_LEN..])
            .map_err(|_| StoreError::Decrypt)?
            .len();
        sealed.drain(..1 + NONCE_LEN);
        sealed.truncate(plain_len);
        Ok(sealed)
    }
}

/// The 32 bytes `text` spells: 64 hex digits, or base64 (standard or URL-safe, padded or not).
fn parse_key(text: &str) -> Result<[u8; 32], Error> {
    let text = text.trim();
    let how = "make one with `openssl rand -base64 32`";
    if text.len() == 64 && text.bytes().all(|b| b.is_ascii_hexdigit()) {
        let mut out = [0u8; 32];
        for (i, pair) in text.as_bytes().chunks(2).enumerate() {
            let hex = std::str::from_utf8(pair).ok().and_then(|s| u8::from_str_radix(s, 16).ok());
            out[i] = hex.ok_or_else(|| Error::Config(format!("{KEY_ENV} is not valid hex; {how}")))?;
        }
        return Ok(out);
    }
    use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
    let decoded = [STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD].iter().find_map(|e| e.decode(text).ok());
    match decoded {
        Some(bytes) => <[u8; 32]>::try_from(bytes.as_slice()).map_err(|_| {
            Error::Config(format!(
                "{KEY_ENV} decodes to {} bytes, not 32: it must be a 32-byte key in base64 or 64 hex digits; {how}",
                bytes.len()
            ))
        }),
        None => Err(Error::Config(format!(
            "{KEY_ENV} is neither base64 nor 64 hex digits: it must be a 32-byte key; {how}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::upstream::user::store::{FileStore, token_key};

    const KEY: &str = "q83vEjRWeJASNFZ4kKvN7xI0VniQq83vEjRWeJASNFY=";
    const OTHER_KEY: &str = "0000000000000000000000000000000000000000000000000000000000000001";

    fn store(dir: &tempfile::TempDir) -> Arc<dyn TokenStore> {
        Arc::new(FileStore::open(dir.path().join("tokens.json")).unwrap())
    }

    #[tokio::test]
    async fn a_value_round_trips_and_is_stored_sealed() {
        let dir = tempfile::tempdir().unwrap();
        let sealed = Sealed::new(store(&dir), KEY).unwrap();
        let k = token_key("alice", "github");
        sealed.put(&k, b"secret-token", None).await.unwrap();
        assert_eq!(sealed.get(&k).await.unwrap().as_deref(), Some(&b"secret-token"[..]));
        let raw = sealed.store().get(&k).await.unwrap().unwrap();
        assert!(!raw.windows(12).any(|w| w == b"secret-token"));
        let file = std::fs::read_to_string(dir.path().join("tokens.json")).unwrap();
        assert!(!file.contains("secret-token"));
        // Two writes of the same value differ (fresh nonces).
        sealed.put(&k, b"secret-token", None).await.unwrap();
        assert_ne!(sealed.store().get(&k).await.unwrap().unwrap(), raw);
        assert_eq!(sealed.take(&k).await.unwrap().as_deref(), Some(&b"secret-token"[..]));
        assert_eq!(sealed.take(&k).await.unwrap(), None);
        assert_eq!(sealed.get("absent").await.unwrap(), None);
        sealed.put(&k, b"", None).await.unwrap();
        assert_eq!(sealed.get(&k).await.unwrap().as_deref(), Some(&b""[..]));
    }

    #[tokio::test]
    async fn a_value_copied_under_another_key_does_not_open() {
        let dir = tempfile::tempdir().unwrap();
        let sealed = Sealed::new(store(&dir), KEY).unwrap();
        let (alice, bob) = (token_key("alice", "github"), token_key("bob", "github"));
        sealed.put(&alice, b"alice-token", None).await.unwrap();
        let raw = sealed.store().get(&alice).await.unwrap().unwrap();
        sealed.store().put(&bob, &raw, None).await.unwrap();
        let e = sealed.get(&bob).await.unwrap_err();
        assert!(matches!(e, StoreError::Decrypt), "{e}");
        assert!(!e.to_string().contains("alice-token"));
        // A changed byte does not open either.
        let mut changed = raw.clone();
        let last = changed.len() - 1;
        changed[last] ^= 1;
        sealed.store().put(&alice, &changed, None).await.unwrap();
        assert!(matches!(sealed.take(&alice).await, Err(StoreError::Decrypt)));
        // Nor does something that was never sealed.
        sealed.store().put(&alice, b"x", None).await.unwrap();
        assert!(matches!(sealed.get(&alice).await, Err(StoreError::Decrypt)));
    }

    #[tokio::test]
    async fn another_encryption_key_fails_clearly() {
        let dir = tempfile::tempdir().unwrap();
        let s = store(&dir);
        let k = token_key("alice", "github");
        Sealed::new(s.clone(), KEY).unwrap().put(&k, b"alice-token", None).await.unwrap();
        let e = Sealed::new(s, OTHER_KEY).unwrap().get(&k).await.unwrap_err().to_string();
        assert!(e.contains("could not be decrypted") && e.contains("was MCPGEN_TOKEN_STORE_KEY changed?"), "{e}");
        assert!(!e.contains("alice-token"));
    }

    #[test]
    fn keys_are_accepted_in_every_spelling_and_bad_ones_refused() {
        let bytes: Vec<u8> = (0u8..32).collect();
        use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
        let hex: String = bytes.iter().map(|b| format!("{b:02X}")).collect();
        for text in [
            STANDARD.encode(&bytes),
            STANDARD_NO_PAD.encode(&bytes),
            URL_SAFE.encode([0xfb; 32]),
            URL_SAFE_NO_PAD.encode([0xff; 32]),
            hex,
            format!(" {}\n", STANDARD.encode(&bytes)),
        ] {
            assert!(parse_key(&text).is_ok(), "{text}");
        }
        assert_eq!(parse_key(&STANDARD.encode(&bytes)).unwrap().to_vec(), bytes);

        let short = STANDARD.encode([7u8; 16]);
        let e = parse_key(&short).unwrap_err().to_string();
        assert!(e.contains("16 bytes, not 32") && e.contains("openssl rand -base64 32"), "{e}");
        assert!(!e.contains(&short));
        let e = parse_key("not a key at all!").unwrap_err().to_string();
        assert!(e.contains("neither base64 nor 64 hex digits") && !e.contains("not a key at all"), "{e}");
    }

    #[test]
    fn from_env_requires_the_key_and_debug_hides_it() {
        let dir = tempfile::tempdir().unwrap();
        let e = Sealed::from_env(store(&dir), &|_: &str| Some(String::new())).unwrap_err().to_string();
        assert!(e.contains("MCPGEN_TOKEN_STORE_KEY is not set") && e.contains("--upstream-auth user"), "{e}");
        let sealed = Sealed::from_env(store(&dir), &|name: &str| (name == KEY_ENV).then(|| KEY.to_string())).unwrap();
        let shown = format!("{sealed:?}");
        assert!(shown.contains("<redacted>") && !shown.contains(KEY) && !shown.contains("q83v"), "{shown}");
    }
}
