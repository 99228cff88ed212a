//! Which pending job a free worker takes. Fair (the default): accounts take turns, the one
//! with the fewest jobs running (on every instance) first, then the one whose last turn is
//! longest ago (so a flood of one account's jobs does not hold back another's single job),
//! then the one waiting longest; within an account, priority, then age. FIFO: the account with
//! the oldest pending job.
//! An account at its plan's `max_running_jobs` is skipped; its jobs wait their turn. Split
//! segments take workers too: they count as running for their account, and a free worker takes
//! one only when no account with fewer running waits with a job (`segment_turn`).

use std::collections::HashMap;

use crate::app::AppState;
use crate::config::Scheduling;
use crate::db::{ClaimView, Job};
use crate::error::AppResult;

/// Claims the next job for this worker, or `None` when no account may run one now.
pub async fn claim(
    state: &AppState,
    token: &str,
    now: i64,
    lease_ms: i64,
) -> AppResult<Option<Job>> {
    let ClaimView {
        pending,
        running,
        turns: last,
    } = state.db.claim_view(state.cfg.split.enabled).await?;
    if pending.is_empty() {
        return Ok(None);
    }
    let accounts: Vec<String> = pending.iter().map(|(a, _)| a.clone()).collect();
    let mut limits = HashMap::new();
    for account in &accounts {
        limits.insert(account.clone(), max_running(state, account).await?);
    }
    let mut turns: Vec<(u64, i64, i64, String)> = pending
        .into_iter()
        .map(|(account, oldest)| {
            let n = running.get(&account).copied().unwrap_or(0);
            (n, last.get(&account).copied().unwrap_or(0), oldest, account)
        })
        .filter(|(n, _, _, account)| limits[account].is_none_or(|max| *n < max as u64))
        .collect();
    match state.cfg.jobs.scheduling {
        Scheduling::Fair => turns.sort(),
        Scheduling::Fifo => turns.sort_by_key(|(_, _, oldest, _)| *oldest),
    }
    for (_, _, _, account) in turns {
        if let Some(job) = state
            .db
            .claim_job(&account, limits[&account], token, now, lease_ms)
            .await?
        {
            return Ok(Some(job));
        }
    }
    Ok(None)
}

/// How many jobs run before a pending one, taking accounts in turn: its own account's jobs
/// ahead of it, and from every other account one a turn, with one more from those whose last
/// turn came before this account's. An approximation: running counts change the order too.
pub async fn queue_position(state: &AppState, job: &Job) -> AppResult<u64> {
    let fair = state.cfg.jobs.scheduling == Scheduling::Fair;
    if let Some(queue) = state.db.queue_snapshot().await? {
        // The same rules as the queries below, on the queue kept in memory: of the account's
        // own, those of a higher priority, then the older, then (a tie) the smaller id.
        let ahead = queue
            .waiting
            .iter()
            .filter(|w| {
                w.account == job.account
                    && w.job_id != job.job_id
                    && (
                        w.priority_rank,
                        std::cmp::Reverse(w.created_at),
                        std::cmp::Reverse(&w.job_id),
                    ) > (
                        job.priority_rank,
                        std::cmp::Reverse(job.created_at),
                        std::cmp::Reverse(&job.job_id),
                    )
            })
            .count() as u64;
        let others = if fair {
            let mut pending: HashMap<String, u64> = HashMap::new();
            for w in &queue.waiting {
                *pending.entry(w.account.clone()).or_default() += 1;
            }
            taking_turns(ahead, &pending, &queue.turns, &job.account)
        } else {
            queue
                .waiting
                .iter()
                .filter(|w| w.account != job.account && w.created_at < job.created_at)
                .count() as u64
        };
        return Ok(ahead + others);
    }
    let (ahead, pending) = state.db.queue_around(job).await?;
    let others = if fair {
        let accounts: Vec<String> = pending.keys().cloned().collect();
        let last = state.db.last_turns(&accounts).await?;
        taking_turns(ahead, &pending, &last, &job.account)
    } else {
        state.db.pending_before(job).await?
    };
    Ok(ahead + others)
}

/// Jobs of other accounts that run before a job with `ahead` of its own account's before it:
/// from each, one a turn, and one more from those whose last turn came before `account`'s.
fn taking_turns(
    ahead: u64,
    pending: &HashMap<String, u64>,
    last_turns: &HashMap<String, i64>,
    account: &str,
) -> u64 {
    let mine = last_turns.get(account).copied().unwrap_or(0);
    pending
        .iter()
        .filter(|(other, _)| *other != account)
        .map(|(other, n)| {
            let earlier = last_turns.get(other).copied().unwrap_or(0) < mine;
            (*n).min(ahead + u64::from(earlier))
        })
        .sum()
}

/// Where the next split segment stands against the waiting jobs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SegmentTurn {
    /// No segment waits, or its account is at its `max_running_jobs` (its coordinator encodes
    /// its own segments meanwhile).
    None,
    /// Before any job: no account that waits with a job runs fewer than the segment's.
    First,
    /// After the jobs of accounts running fewer: taken only if none of them can be claimed.
    AfterJobs,
}

/// Whether a free worker should take a split segment before a job (fair scheduling), so one
/// account's split does not hold another's single job back.
pub async fn segment_turn(state: &AppState, now: i64) -> AppResult<SegmentTurn> {
    let Some(account) = state.db.next_part_account(now).await? else {
        return Ok(SegmentTurn::None);
    };
    let running = state.db.running_by_account(true).await?;
    let mine = running.get(&account).copied().unwrap_or(0);
    if max_running(state, &account)
        .await?
        .is_some_and(|max| mine >= max as u64)
    {
        return Ok(SegmentTurn::None);
    }
    if state.cfg.jobs.scheduling == Scheduling::Fifo {
        return Ok(SegmentTurn::First);
    }
    for (other, _) in state.db.pending_accounts().await? {
        if other != account && running.get(&other).copied().unwrap_or(0) < mine {
            return Ok(SegmentTurn::AfterJobs);
        }
    }
    Ok(SegmentTurn::First)
}

async fn max_running(state: &AppState, account: &str) -> AppResult<Option<u32>> {
    // No plan bounds it (the default): no account to read, on every claim.
    if state
        .cfg
        .plans
        .values()
        .all(|p| p.max_running_jobs.is_none())
    {
        return Ok(None);
    }
    let Some(account) = state.auth.account(account).await? else {
        return Ok(None);
    };
    Ok(state.plan_of(&account)?.1.max_running_jobs)
}
