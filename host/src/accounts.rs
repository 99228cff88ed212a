//! Accounts and keys as objects (the operator API and `mediaforge accounts|keys|audit`): accounts
//! made and re-planned without a restart, several keys per account, each shown once, stored
//! hashed, scoped `read` or `full`, with an expiry and a last use; revocation that reaches every
//! instance within a second (`auth`'s half-second look-up); and an audit log of these actions and
//! of tenants' destructive ones (who, what, when, from where). The config file's accounts stay
//! the bootstrap: they are made again at every start, with the file's plan and key.

use crate::app::AppState;
use crate::auth::{Caller, hash_key, new_key, prefix_of};
use crate::clock;
use crate::db::{AccountRow, AuditEntry, KeyRow, KeyScope, Source};
use crate::error::{AppError, AppResult};

/// Who did something, and from where, for the audit log.
#[derive(Debug, Clone)]
pub struct Actor {
    /// `operator`, or `<account>/<key id>`.
    pub who: String,
    pub address: String,
}

impl Actor {
    pub fn operator(address: String) -> Actor {
        Actor {
            who: "operator".into(),
            address,
        }
    }

    pub fn caller(caller: &Caller, address: String) -> Actor {
        Actor {
            who: format!("{}/{}", caller.account.name, caller.key_id),
            address,
        }
    }
}

/// Appends to the audit log. A failure to write it is logged, not the caller's: the action
/// it records has happened.
pub async fn audit(state: &AppState, actor: &Actor, action: &str, subject: &str) {
    let entry = AuditEntry {
        at: clock::now_ms(),
        actor: actor.who.clone(),
        action: action.into(),
        subject: subject.into(),
        address: actor.address.clone(),
    };
    if let Err(e) = state.db.audit(&entry).await {
        tracing::warn!(action, subject, "audit entry not written: {e}");
    }
}

pub async fn audit_log(
    state: &AppState,
    account: Option<&str>,
    limit: u32,
) -> AppResult<Vec<AuditEntry>> {
    Ok(state.db.audit_log(account, limit.clamp(1, 1000)).await?)
}

/// An account name: what a config file's may be, 1-64 of letters, digits, `_`, `-`, `.`.
fn check_name(name: &str) -> AppResult<()> {
    let ok = (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
    if ok {
        Ok(())
    } else {
        Err(AppError::BadRequest(
            "name must be 1-64 letters, digits, '_', '-' or '.'".into(),
        ))
    }
}

fn check_plan(state: &AppState, plan: &str) -> AppResult<()> {
    if state.cfg.plans.contains_key(plan) {
        Ok(())
    } else {
        let known: Vec<&str> = state.cfg.plans.keys().map(String::as_str).collect();
        Err(AppError::BadRequest(format!(
            "Unknown plan '{}' (the config's plans: {})",
            plan.chars().take(64).collect::<String>(),
            known.join(", ")
        )))
    }
}

pub async fn list(state: &AppState) -> AppResult<Vec<AccountRow>> {
    Ok(state.db.accounts().await?)
}

pub async fn create(
    state: &AppState,
    actor: &Actor,
    name: &str,
    plan: &str,
) -> AppResult<AccountRow> {
    check_name(name)?;
    check_plan(state, plan)?;
    let row = AccountRow {
        name: name.into(),
        plan: plan.into(),
        source: Source::Api,
        created_at: clock::now_ms(),
    };
    if !state.db.create_account(&row).await? {
        return Err(AppError::AccountExists(name.into()));
    }
    audit(state, actor, "account.create", name).await;
    Ok(row)
}

/// A new plan for an account. A config file's account gets its file's plan back at the next
/// start.
pub async fn set_plan(
    state: &AppState,
    actor: &Actor,
    name: &str,
    plan: &str,
) -> AppResult<AccountRow> {
    check_plan(state, plan)?;
    if !state.db.set_plan(name, plan).await? {
        return Err(AppError::AccountNotFound(name.chars().take(64).collect()));
    }
    audit(state, actor, "account.update", name).await;
    let row = state.db.account_row(name).await?;
    row.ok_or_else(|| AppError::AccountNotFound(name.chars().take(64).collect()))
}

pub async fn keys(state: &AppState, account: &str) -> AppResult<Vec<KeyRow>> {
    if state.db.account(account).await?.is_none() {
        return Err(AppError::AccountNotFound(
            account.chars().take(64).collect(),
        ));
    }
    Ok(state.db.keys(account).await?)
}

/// Makes a key for `account`: the key itself is returned here and never again.
pub async fn create_key(
    state: &AppState,
    actor: &Actor,
    account: &str,
    scope: KeyScope,
    expires_in_s: Option<u64>,
) -> AppResult<(String, KeyRow)> {
    if state.db.account(account).await?.is_none() {
        return Err(AppError::AccountNotFound(
            account.chars().take(64).collect(),
        ));
    }
    let key = new_key();
    let now = clock::now_ms();
    let row = KeyRow {
        id: format!("key_{}", crate::names::random_id(16)),
        account: account.into(),
        prefix: prefix_of(&key),
        scope,
        source: Source::Api,
        created_at: now,
        expires_at: expires_in_s
            .map(|s| now.saturating_add((s.min(10 * 365 * 86_400) * 1000) as i64)),
        last_used_at: None,
    };
    state.db.create_key(&hash_key(&key), &row).await?;
    audit(state, actor, "key.create", &format!("{account}/{}", row.id)).await;
    Ok((key, row))
}

/// Revokes a key: every instance refuses it within a second. A config file's key comes back at
/// the next start unless the file drops it.
pub async fn revoke_key(state: &AppState, actor: &Actor, id: &str) -> AppResult<KeyRow> {
    let row = state
        .db
        .revoke_key(id)
        .await?
        .ok_or_else(|| AppError::KeyNotFound(id.chars().take(64).collect()))?;
    state.auth.forget(id);
    audit(state, actor, "key.revoke", &format!("{}/{id}", row.account)).await;
    Ok(row)
}
