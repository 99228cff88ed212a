//! API keys: `Authorization: Basic <KEY>` or `Bearer <KEY>` (scheme word in any case; a
//! standard Basic credential `base64(user:key)` or `base64(key:)` is accepted too). Keys are
//! stored as SHA-256 hashes and looked up by hash, so the secret itself is never compared or
//! kept. A look-up is cached until a key or an account changes anywhere (a live query on both
//! tables, `Authenticator::watch`), for at most a minute; while no live query is open (a
//! cluster, `jobs.live_queries = false`, or the query down) for half a second, so a key
//! revoked on any instance stops working everywhere within a second, and authentication costs
//! at most two queries per key per second.

use std::collections::HashMap;
use std::sync::RwLock;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use base64::Engine;
use sha2::{Digest, Sha256};

use crate::clock;
use crate::db::{Account, Db, DbResult, KeyScope};

const CACHE_TTL: Duration = Duration::from_millis(500);
/// How long a look-up holds while the live query watches for changes: as long as a key's
/// `last_used_at` may lag (its write is itself a change, which empties the cache).
const WATCHED_TTL: Duration = Duration::from_millis(USE_RECORDED_EVERY_MS as u64);
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

/// A look-up as cached: the caller, when it was read, and when its key expires.
struct Cached {
    caller: Caller,
    at: Instant,
    expires_at: Option<i64>,
}

pub struct Authenticator {
    db: Db,
    cache: RwLock<HashMap<String, Cached>>,
    /// Accounts by name, on the same terms as the keys: a worker reads its job's account on
    /// every run (issue #34: a query a job saved).
    accounts: RwLock<HashMap<String, (Account, Instant)>>,
    /// Whether the live query on keys and accounts is open (`watch`).
    watched: AtomicBool,
    /// Counts the changes seen: a look-up read before a change is not cached after it.
    changes: AtomicU64,
}

impl Authenticator {
    pub fn new(db: Db) -> Authenticator {
        Authenticator {
            db,
            cache: RwLock::new(HashMap::new()),
            accounts: RwLock::new(HashMap::new()),
            watched: AtomicBool::new(false),
            changes: AtomicU64::new(0),
        }
    }

    /// How long a look-up holds: longer while the live query watches for changes.
    fn ttl(&self) -> Duration {
        if self.watched.load(Ordering::SeqCst) {
            WATCHED_TTL
        } else {
            CACHE_TTL
        }
    }

    /// The account `name`, from the cache when read within its time and unchanged since.
    pub async fn account(&self, name: &str) -> DbResult<Option<Account>> {
        if let Some((account, at)) = self.accounts.read().expect("lock").get(name)
            && at.elapsed() < self.ttl()
        {
            return Ok(Some(account.clone()));
        }
        let seen = self.changes.load(Ordering::SeqCst);
        let account = self.db.account(name).await?;
        if let Some(account) = &account {
            let read = (account.clone(), Instant::now());
            self.keep(&self.accounts, seen, name.to_string(), read);
        }
        Ok(account)
    }

    /// Keeps what a look-up read, unless a change since it began (`seen`) may have made it
    /// stale (the cache was emptied meanwhile): it is answered, but not kept.
    fn keep<V>(&self, cache: &RwLock<HashMap<String, V>>, seen: u64, key: String, value: V) {
        let mut cache = cache.write().expect("lock");
        if self.changes.load(Ordering::SeqCst) == seen {
            if cache.len() >= CACHE_MAX {
                cache.clear();
            }
            cache.insert(key, value);
        }
    }

    pub async fn authenticate(&self, header: &str) -> DbResult<Option<Caller>> {
        let ttl = self.ttl();
        for key in candidates(header) {
            let hash = hash_key(&key);
            if let Some(hit) = self.cache.read().expect("lock").get(&hash) {
                let expired = hit.expires_at.is_some_and(|at| at <= clock::now_ms());
                if hit.at.elapsed() < ttl && !expired {
                    return Ok(Some(hit.caller.clone()));
                }
            }
            let seen = self.changes.load(Ordering::SeqCst);
            if let Some((caller, expires_at)) = self.look_up(&hash).await? {
                let read = Cached {
                    caller: caller.clone(),
                    at: Instant::now(),
                    expires_at,
                };
                self.keep(&self.cache, seen, hash, read);
                return Ok(Some(caller));
            }
        }
        Ok(None)
    }

    /// Keeps the cache true to the database while a live query on keys and accounts is open:
    /// any change to either empties it. Runs for the process's life; when the query cannot
    /// open or closes, look-ups are cached for half a second again until it reopens.
    pub async fn watch(&self) {
        use futures_util::StreamExt;
        let _task = crate::metrics::background("auth_live_query");
        loop {
            let opened = async {
                // Each stream ends with a `None`: either one closing closes the watch.
                let end = || futures_util::stream::iter([None]);
                let keys = self.db.changes("api_key").await?.map(Some).chain(end());
                let accounts = self.db.changes("account").await?.map(Some).chain(end());
                DbResult::Ok(futures_util::stream::select(keys, accounts))
            };
            match opened.await {
                Ok(mut changes) => {
                    // Changes made before the query opened were not seen: start afresh.
                    self.forget_all();
                    self.watched.store(true, Ordering::SeqCst);
                    while let Some(Some(_)) = changes.next().await {
                        self.forget_all();
                    }
                    self.watched.store(false, Ordering::SeqCst);
                    self.forget_all();
                }
                Err(e) => tracing::warn!("key live query unavailable, caching 0.5 s: {e}"),
            }
            tokio::time::sleep(Duration::from_secs(5)).await;
        }
    }

    fn forget_all(&self) {
        self.forget_where(|_| true);
        self.accounts.write().expect("lock").clear();
    }

    /// Drops the key `key_id` from this instance's cache: revoked here, it stops at once here
    /// (other instances hear of it by their live query, or within their cache's half second).
    pub fn forget(&self, key_id: &str) {
        self.forget_where(|hit| hit.caller.key_id == key_id);
    }

    /// Drops the cached look-ups `gone` names, and counts a change: a look-up in flight is then
    /// not kept.
    fn forget_where(&self, gone: impl Fn(&Cached) -> bool) {
        let mut cache = self.cache.write().expect("lock");
        self.changes.fetch_add(1, Ordering::SeqCst);
        cache.retain(|_, hit| !gone(hit));
    }

    /// The key's caller when it exists, has not expired and its account exists, with the
    /// key's expiry.
    async fn look_up(&self, hash: &str) -> DbResult<Option<(Caller, Option<i64>)>> {
        let Some(key) = self.db.key_found(hash).await? else {
            return Ok(None);
        };
        let now = clock::now_ms();
        if key.expires_at.is_some_and(|at| at <= now) {
            return Ok(None);
        }
        let Some(account) = self.account(&key.account).await? else {
            return Ok(None);
        };
        if key
            .last_used_at
            .is_none_or(|at| now - at >= USE_RECORDED_EVERY_MS)
        {
            self.db.key_used(hash, now).await?;
        }
        let caller = Caller {
            account,
            key_id: key.key_id,
            scope: key.scope,
        };
        Ok(Some((caller, key.expires_at)))
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
