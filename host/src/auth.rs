//! API keys: `Authorization: Basic <KEY>` or `Bearer <KEY>` (scheme word in any case; a
//! standard Basic credential `base64(user:key)` or `base64(key:)` is accepted too). Keys are
//! stored as SHA-256 hashes and looked up by hash, so the secret itself is never compared or
//! kept. A look-up is cached for half a second, so authentication costs at most two queries per
//! key per second, and a key revoked on any instance stops working everywhere within a second.

use std::collections::HashMap;
use std::sync::RwLock;
use std::time::{Duration, Instant};

use base64::Engine;
use sha2::{Digest, Sha256};

use crate::clock;
use crate::db::{Account, Db, DbResult, KeyScope};

const CACHE_TTL: Duration = Duration::from_millis(500);
const CACHE_MAX: usize = 10_000;
/// A key's `last_used_at` is written at most this often.
const USE_RECORDED_EVERY_MS: i64 = 60_000;

/// Who is calling: the account, and the key it used.
#[derive(Debug, Clone)]
pub struct Caller {
    pub account: Account,
    pub key_id: String,
    pub scope: KeyScope,
}

/// A new API key: `mf_` and 40 random characters (about 238 bits).
pub fn new_key() -> String {
    format!("mf_{}", crate::names::random_id(40))
}

/// What a listing shows of a key: its first characters.
pub fn prefix_of(key: &str) -> String {
    key.chars().take(8).collect()
}

pub fn hash_key(key: &str) -> String {
    hex::encode(Sha256::digest(key.as_bytes()))
}

/// The key candidates an `Authorization` header carries, most likely first.
pub fn candidates(header: &str) -> Vec<String> {
    let header = header.trim();
    let Some((scheme, token)) = header.split_once(char::is_whitespace) else {
        return Vec::new();
    };
    let token = token.trim();
    if token.is_empty() || token.len() > 512 {
        return Vec::new();
    }
    let mut out = Vec::new();
    if scheme.eq_ignore_ascii_case("basic") || scheme.eq_ignore_ascii_case("bearer") {
        out.push(token.to_string());
    }
    if scheme.eq_ignore_ascii_case("basic") {
        if let Some((user, pass)) = base64::engine::general_purpose::STANDARD
            .decode(token)
            .ok()
            .and_then(|b| String::from_utf8(b).ok())
            .and_then(|s| {
                s.split_once(':')
                    .map(|(u, p)| (u.to_string(), p.to_string()))
            })
        {
            for k in [pass, user] {
                if !k.is_empty() && !out.contains(&k) {
                    out.push(k);
                }
            }
        }
    }
    out
}

pub struct Authenticator {
    db: Db,
    cache: RwLock<HashMap<String, (Caller, Instant)>>,
}

impl Authenticator {
    pub fn new(db: Db) -> Authenticator {
        Authenticator {
            db,
            cache: RwLock::new(HashMap::new()),
        }
    }

    pub async fn authenticate(&self, header: &str) -> DbResult<Option<Caller>> {
        for key in candidates(header) {
            let hash = hash_key(&key);
            if let Some((caller, at)) = self.cache.read().expect("lock").get(&hash) {
                if at.elapsed() < CACHE_TTL {
                    return Ok(Some(caller.clone()));
                }
            }
            if let Some(caller) = self.look_up(&hash).await? {
                let mut cache = self.cache.write().expect("lock");
                if cache.len() >= CACHE_MAX {
                    cache.clear();
                }
                cache.insert(hash, (caller.clone(), Instant::now()));
                return Ok(Some(caller));
            }
        }
        Ok(None)
    }

    /// Drops the key `key_id` from this instance's cache: revoked here, it stops at once here
    /// (other instances see it within their cache's half second).
    pub fn forget(&self, key_id: &str) {
        self.cache
            .write()
            .expect("lock")
            .retain(|_, (caller, _)| caller.key_id != key_id);
    }

    /// The key's caller when it exists, has not expired and its account exists.
    async fn look_up(&self, hash: &str) -> DbResult<Option<Caller>> {
        let Some(key) = self.db.key_found(hash).await? else {
            return Ok(None);
        };
        let now = clock::now_ms();
        if key.expires_at.is_some_and(|at| at <= now) {
            return Ok(None);
        }
        let Some(account) = self.db.account(&key.account).await? else {
            return Ok(None);
        };
        if key
            .last_used_at
            .is_none_or(|at| now - at >= USE_RECORDED_EVERY_MS)
        {
            self.db.key_used(hash, now).await?;
        }
        Ok(Some(Caller {
            account,
            key_id: key.key_id,
            scope: key.scope,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_forms() {
        assert_eq!(candidates("Basic abc123"), vec!["abc123"]);
        assert_eq!(candidates("bearer abc123"), vec!["abc123"]);
        assert_eq!(candidates("BASIC   abc123  "), vec!["abc123"]);
        // curl -u key: sends base64("key:")
        let b = base64::engine::general_purpose::STANDARD.encode("mykey:");
        assert_eq!(
            candidates(&format!("Basic {b}")),
            vec![b.clone(), "mykey".to_string()]
        );
        assert!(candidates("Token abc").is_empty());
        assert!(candidates("abc").is_empty());
        assert!(candidates("Basic ").is_empty());
    }
}
