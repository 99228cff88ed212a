//! Secrets kept at rest (tenants' bucket keys, `credentials.rs`): sealed with
//! ChaCha20-Poly1305 (ring's AEAD) under `[storage] credentials_key`, which lives in the
//! configuration, never in the database, so a copy of the database alone opens nothing. The
//! associated data binds each sealed value to what it belongs to: a sealed secret copied onto
//! another account's record does not open.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use ring::aead::{Aad, CHACHA20_POLY1305, LessSafeKey, NONCE_LEN, Nonce, UnboundKey};
use ring::rand::{SecureRandom, SystemRandom};

/// The key secrets are sealed with.
pub struct Sealer {
    key: LessSafeKey,
}

/// Why a sealed value did not open: the wrong key, or not what it claims to belong to.
#[derive(Debug, thiserror::Error)]
#[error("a sealed secret did not open (the credentials key changed, or the record was altered)")]
pub struct Unsealable;

impl Sealer {
    /// From the configured key: 32 bytes, base64 (`openssl rand -base64 32`).
    pub fn new(configured: &str) -> anyhow::Result<Sealer> {
        let bytes = STANDARD.decode(configured.trim()).map_err(|_| {
            anyhow::anyhow!("storage.credentials_key must be base64 (openssl rand -base64 32)")
        })?;
        anyhow::ensure!(
            bytes.len() == 32,
            "storage.credentials_key must be 32 bytes of base64 (openssl rand -base64 32), not {}",
            bytes.len()
        );
        let key = UnboundKey::new(&CHACHA20_POLY1305, &bytes)
            .map_err(|_| anyhow::anyhow!("storage.credentials_key is not a valid key"))?;
        Ok(Sealer {
            key: LessSafeKey::new(key),
        })
    }

    /// `secret` sealed for `owner`: base64 of a random nonce and the ciphertext with its tag.
    pub fn seal(&self, owner: &str, secret: &str) -> String {
        let mut nonce = [0u8; NONCE_LEN];
        SystemRandom::new()
            .fill(&mut nonce)
            .expect("the system's random source");
        let mut sealed = secret.as_bytes().to_vec();
        self.key
            .seal_in_place_append_tag(
                Nonce::assume_unique_for_key(nonce),
                Aad::from(owner.as_bytes()),
                &mut sealed,
            )
            .expect("sealing a short secret");
        let mut out = nonce.to_vec();
        out.extend_from_slice(&sealed);
        STANDARD.encode(out)
    }

    /// The secret `sealed` for `owner`.
    pub fn open(&self, owner: &str, sealed: &str) -> Result<String, Unsealable> {
        let bytes = STANDARD.decode(sealed).map_err(|_| Unsealable)?;
        if bytes.len() < NONCE_LEN {
            return Err(Unsealable);
        }
        let (nonce, rest) = bytes.split_at(NONCE_LEN);
        let nonce = Nonce::try_assume_unique_for_key(nonce).map_err(|_| Unsealable)?;
        let mut rest = rest.to_vec();
        let plain = self
            .key
            .open_in_place(nonce, Aad::from(owner.as_bytes()), &mut rest)
            .map_err(|_| Unsealable)?;
        String::from_utf8(plain.to_vec()).map_err(|_| Unsealable)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";

    #[test]
    fn opens_only_for_its_owner_and_key() {
        let s = Sealer::new(KEY).unwrap();
        let sealed = s.seal("acme/bucket", "very-secret");
        assert!(!sealed.contains("very-secret"));
        assert_ne!(
            sealed,
            s.seal("acme/bucket", "very-secret"),
            "a fresh nonce each time"
        );
        assert_eq!(s.open("acme/bucket", &sealed).unwrap(), "very-secret");
        assert!(s.open("other/bucket", &sealed).is_err());
        let other = Sealer::new("HwAeHRwbGhkYFxYVFBMSERAPDg0MCwoJCAcGBQQDAgE=").unwrap();
        assert!(other.open("acme/bucket", &sealed).is_err());
        assert!(Sealer::new("c2hvcnQ=").is_err());
        assert!(Sealer::new("not base64!").is_err());
    }
}
