//! API keys: `Authorization: Basic <KEY>` or `Bearer <KEY>` (scheme word in any case; a
//! standard Basic credential `base64(user:key)` or `base64(key:)` is accepted too). Keys are
//! stored as SHA-256 hashes and looked up by hash, so the secret itself is never compared or
//! kept; successful look-ups are cached briefly so authentication costs no query per request.

use std::collections::HashMap;
use std::sync::RwLock;
use std::time::{Duration, Instant};

use base64::Engine;
use sha2::{Digest, Sha256};

use crate::db::{Account, Db, DbResult};

const CACHE_TTL: Duration = Duration::from_secs(30);
const CACHE_MAX: usize = 10_000;

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
    cache: RwLock<HashMap<String, (Account, Instant)>>,
}

impl Authenticator {
    pub fn new(db: Db) -> Authenticator {
        Authenticator {
            db,
            cache: RwLock::new(HashMap::new()),
        }
    }

    pub async fn authenticate(&self, header: &str) -> DbResult<Option<Account>> {
        for key in candidates(header) {
            let hash = hash_key(&key);
            if let Some((account, at)) = self.cache.read().expect("lock").get(&hash) {
                if at.elapsed() < CACHE_TTL {
                    return Ok(Some(account.clone()));
                }
            }
            if let Some(account) = self.db.account_by_key_hash(&hash).await? {
                let mut cache = self.cache.write().expect("lock");
                if cache.len() >= CACHE_MAX {
                    cache.clear();
                }
                cache.insert(hash, (account.clone(), Instant::now()));
                return Ok(Some(account));
            }
        }
        Ok(None)
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
