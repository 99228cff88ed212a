//! Webhook delivery from the outbox (the `webhook` field of finished jobs): the formatter plugin
//! turns the event into a request, the host checks it, signs it (Standard Webhooks) and sends
//! it through the one outbound client, following no redirect. Failures are retried with
//! exponential back-off and jitter (honouring `Retry-After`) up to `webhooks.max_attempts`.
//!
//! Up to `webhooks.max_concurrent` deliveries run at once per instance, each bounded in time
//! (the formatter by `plugins.timeout_ms`, the request by `webhooks.timeout_s`), so one slow
//! formatter call or receiver never holds back another tenant's callback. A formatter failure
//! is the operator's to see (logged, counted by `PluginHost::report`); the tenant's
//! `webhook.last_error` says only that the formatter failed. One that fails the same way every
//! time (a refusal, a request the host refuses) is not retried.

use std::sync::Arc;
use std::time::Duration;

use base64::Engine;
use hmac::{Hmac, Mac};
use rand::Rng;
use sha2::Sha256;

use tokio::sync::Semaphore;

use crate::app::AppState;
use crate::db::{DeliveryState, Job, JobStatus};
use crate::plugins::types::{CallbackRequest, EventFile, EventOutcome, JobEvent};
use crate::plugins::{Failure, PluginError, World};
use crate::{clock, pipeline};

/// What the tenant's `webhook.last_error` says of any formatter failure; the reason is logged.
pub const FORMATTER_FAILED: &str = "the webhook formatter failed";

const MAX_BODY: usize = 1024 * 1024;
const MAX_HEADERS: usize = 32;
/// Headers a formatter may not set: the host owns framing, routing and the signature.
const RESERVED: &[&str] = &[
    "host",
    "content-length",
    "content-type",
    "transfer-encoding",
    "connection",
    "keep-alive",
    "upgrade",
    "te",
    "trailer",
    "proxy-authorization",
    "proxy-connection",
    "webhook-id",
    "webhook-timestamp",
    "webhook-signature",
];

pub async fn deliver_loop(state: Arc<AppState>) {
    // Longer than an attempt can take (the formatter call, then the request), so no other
    // instance claims a delivery still under way.
    let lease_ms =
        (state.cfg.webhooks.timeout_s as i64 + 30) * 1000 + state.cfg.plugins.timeout_ms as i64;
    let slots = Arc::new(Semaphore::new(
        state.cfg.webhooks.max_concurrent.max(1) as usize
    ));
    let _task = crate::metrics::background("webhook_loop");
    // Leases of deliveries a dead instance held lapse after minutes: looked for every few
    // seconds, not on every turn.
    let mut requeue = clock::Every::new(IDLE_LOOK);
    loop {
        let slot = slots
            .clone()
            .acquire_owned()
            .await
            .expect("semaphore never closes");
        let woken = state.wakers.webhooks.notified();
        // None pending and none under way, and nothing written since that was read: an
        // idle instance's looks cost no query (issue #34).
        if state.db.deliveries_quiet() {
            drop(slot);
            tokio::select! {
                _ = woken => {}
                _ = tokio::time::sleep(IDLE_LOOK) => {}
            }
            continue;
        }
        let now = clock::now_ms();
        if requeue.due() {
            if let Err(e) = state.db.requeue_deliveries(now).await {
                tracing::warn!("webhook requeue failed: {e}");
            }
        }
        match state.db.claim_delivery(now, lease_ms).await {
            Ok(Some(job)) => {
                let state = state.clone();
                tokio::spawn(async move {
                    let _task = crate::metrics::background("webhook_delivery");
                    deliver(&state, job).await;
                    drop(slot);
                });
                continue;
            }
            Ok(None) => {}
            Err(e) => tracing::warn!("webhook claim failed: {e}"),
        }
        drop(slot);
        // Nothing due: sleep until the next retry falls due, or a job ends (here, or on
        // another instance through the live query), or at most IDLE_LOOK.
        let due = match state.db.next_delivery_at().await {
            Ok(Some(at)) => Duration::from_millis((at - now).clamp(0, IDLE_LOOK_MS) as u64),
            Ok(None) => IDLE_LOOK,
            Err(e) => {
                tracing::warn!("webhook look-up failed: {e}");
                IDLE_LOOK
            }
        };
        tokio::select! {
            _ = woken => {}
            _ = tokio::time::sleep(due) => {}
        }
    }
}

/// The longest an idle delivery loop sleeps without being woken.
const IDLE_LOOK_MS: i64 = 5000;
const IDLE_LOOK: Duration = Duration::from_millis(IDLE_LOOK_MS as u64);

async fn deliver(state: &AppState, job: Job) {
    let (Some(url), Some(mut hook)) = (job.webhook_url.clone(), job.webhook.clone()) else {
        return;
    };
    hook.attempts += 1;
    let attempt = send(state, &job, &url, &hook.event_id, hook.attempts).await;
    let cfg = &state.cfg.webhooks;
    match attempt {
        Ok((status, _)) if (200..300).contains(&status) => {
            hook.state = DeliveryState::Delivered;
            hook.last_status = Some(status);
            hook.last_error = None;
            hook.delivered_at = Some(clock::now_ms());
        }
        result => {
            let (retry_after, final_) = match &result {
                Ok((status, retry_after)) => {
                    hook.last_status = Some(*status);
                    hook.last_error = Some(format!("HTTP {status}"));
                    (*retry_after, false)
                }
                Err(Attempt::Formatter(kind)) => {
                    hook.last_error = Some(FORMATTER_FAILED.into());
                    (None, kind.is_deterministic())
                }
                Err(Attempt::Failed(e)) => {
                    hook.last_error = Some(e.clone());
                    (None, false)
                }
            };
            if final_ || hook.attempts >= cfg.max_attempts {
                hook.state = DeliveryState::Failed;
            } else {
                hook.state = DeliveryState::Pending;
                let delay = backoff(
                    cfg.initial_backoff_s,
                    cfg.max_backoff_s,
                    hook.attempts,
                    retry_after,
                );
                hook.next_at = clock::now_ms() + delay.as_millis() as i64;
            }
        }
    }
    tracing::info!(
        job_id = job.job_id,
        state = ?hook.state,
        attempts = hook.attempts,
        "webhook attempt"
    );
    crate::metrics::webhook_attempt(match hook.state {
        DeliveryState::Delivered => "delivered",
        DeliveryState::Failed => "failed",
        _ => "retry",
    });
    if let Err(e) = state.db.record_delivery(&job.job_id, &hook).await {
        tracing::error!(job_id = job.job_id, "cannot record webhook attempt: {e}");
    }
}

/// Exponential back-off with ±20% jitter; a longer `Retry-After` wins; both capped.
pub fn backoff(
    initial_s: u64,
    max_s: u64,
    attempts: u32,
    retry_after: Option<Duration>,
) -> Duration {
    let base = initial_s as f64 * 2f64.powi(attempts.saturating_sub(1).min(30) as i32);
    let jittered = base * rand::rng().random_range(0.8..1.2);
    let delay = Duration::from_secs_f64(jittered.min(max_s as f64));
    retry_after
        .map_or(delay, |r| r.max(delay))
        .min(Duration::from_secs(max_s))
}

/// Why an attempt sent nothing, or got no answer.
enum Attempt {
    /// The formatter failed (already reported to the operator).
    Formatter(Failure),
    /// Anything else, in words the tenant may read.
    Failed(String),
}

/// One attempt: the status and any `Retry-After`, or why nothing was sent.
async fn send(
    state: &AppState,
    job: &Job,
    url: &str,
    event_id: &str,
    attempt: u32,
) -> Result<(u16, Option<Duration>), Attempt> {
    let event = event(state, job, url, event_id, attempt)
        .await
        .map_err(Attempt::Failed)?;
    let plugins = &state.plugins;
    let failed = |kind: Failure, reason: &str| {
        plugins.report(World::WebhookFormatter, kind, reason);
        Attempt::Formatter(kind)
    };
    let request = plugins.format_event(&event).await.map_err(|e| match e {
        PluginError::Failed { kind, .. } => Attempt::Formatter(kind),
        PluginError::Refused { message, .. } => failed(Failure::Refused, &message),
        PluginError::Missing(_) => Attempt::Failed(e.to_string()),
    })?;
    let headers = checked_headers(&request).map_err(|why| failed(Failure::Output, &why))?;
    let timestamp = clock::unix_now().to_string();
    let mut all = vec![
        ("content-type".to_string(), request.content_type.clone()),
        ("webhook-id".to_string(), event_id.to_string()),
        ("webhook-timestamp".to_string(), timestamp.clone()),
    ];
    if !state.cfg.webhooks.signing_secret.is_empty() {
        all.push((
            "webhook-signature".to_string(),
            sign(
                &state.cfg.webhooks.signing_secret,
                event_id,
                &timestamp,
                &request.body,
            ),
        ));
    }
    all.extend(headers);
    let timeout = Duration::from_secs(state.cfg.webhooks.timeout_s);
    let reply = state
        .net
        .post(url, &all, request.body.into_bytes(), timeout)
        .await
        .map_err(|e| Attempt::Failed(e.to_string()))?;
    Ok((reply.status, reply.retry_after))
}

/// The host's checks of a formatter's request (`docs/plugins.md`): its extra headers, or why
/// it is refused.
pub fn checked_headers(request: &CallbackRequest) -> Result<Vec<(String, String)>, String> {
    if request.body.len() > MAX_BODY {
        return Err("webhook formatter returned a body over 1 MiB".into());
    }
    let ct = &request.content_type;
    if ct.is_empty() || ct.len() > 200 || ct.chars().any(|c| c.is_control()) {
        return Err("webhook formatter returned an invalid content type".into());
    }
    if request.headers.len() > MAX_HEADERS {
        return Err("webhook formatter returned too many headers".into());
    }
    request
        .headers
        .iter()
        .map(|(raw_name, value)| {
            let name = raw_name.to_ascii_lowercase();
            let token = !name.is_empty()
                && name.len() <= 100
                && name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b));
            if !token || RESERVED.contains(&name.as_str()) {
                return Err(format!("webhook formatter may not set header '{raw_name}'"));
            }
            if value.len() > 4096 || value.chars().any(|c| c.is_control() && c != '\t') {
                return Err(format!(
                    "webhook formatter returned an invalid value for '{raw_name}'"
                ));
            }
            Ok((name, value.clone()))
        })
        .collect()
}

/// Standard Webhooks: `v1,` + base64 HMAC-SHA256 over `id.timestamp.body`; a `whsec_` secret is
/// base64 after the prefix, any other secret is used as its bytes.
pub fn sign(secret: &str, id: &str, timestamp: &str, body: &str) -> String {
    let key = match secret.strip_prefix("whsec_") {
        Some(b64) => base64::engine::general_purpose::STANDARD
            .decode(b64)
            .unwrap_or_else(|_| b64.as_bytes().to_vec()),
        None => secret.as_bytes().to_vec(),
    };
    let mut mac = Hmac::<Sha256>::new_from_slice(&key).expect("HMAC takes keys of any size");
    mac.update(format!("{id}.{timestamp}.{body}").as_bytes());
    format!(
        "v1,{}",
        base64::engine::general_purpose::STANDARD.encode(mac.finalize().into_bytes())
    )
}

async fn event(
    state: &AppState,
    job: &Job,
    url: &str,
    event_id: &str,
    attempt: u32,
) -> Result<JobEvent, String> {
    let outcome = match (job.status, &job.result, &job.usage) {
        (JobStatus::Completed, Some(result), Some(usage)) => EventOutcome::Completed {
            files: pipeline::links(state, result)
                .await
                .map_err(|e| format!("cannot sign download URLs: {e}"))?
                .into_iter()
                .map(|l| EventFile {
                    file_name: l.file_name,
                    size_bytes: l.size_bytes,
                    download_url: l.download_url,
                })
                .collect(),
            usage: *usage,
        },
        _ => EventOutcome::Failed {
            error: job.error.clone().unwrap_or_else(|| "Job failed".into()),
            details: job.details.clone(),
        },
    };
    Ok(JobEvent {
        event_id: event_id.to_string(),
        job_id: job.job_id.clone(),
        account_id: job.account.clone(),
        attempt,
        outcome,
        occurred_at: clock::ms_rfc3339(job.completed_at.unwrap_or(job.updated_at)),
        webhook_url: url.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_follow_standard_webhooks() {
        // The example of the Standard Webhooks specification.
        let sig = sign(
            "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
            "msg_p5jXN8AQM9LWM0D4loKWxJek",
            "1614265330",
            r#"{"test": 2432232314}"#,
        );
        assert_eq!(sig, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
    }

    #[test]
    fn backoff_doubles_with_jitter_and_caps() {
        for attempt in 1..6 {
            let d = backoff(5, 3600, attempt, None).as_secs_f64();
            let base = 5.0 * 2f64.powi(attempt as i32 - 1);
            assert!(d >= base * 0.8 && d <= base * 1.2, "{attempt}: {d}");
        }
        assert_eq!(backoff(5, 60, 20, None), Duration::from_secs(60));
        assert_eq!(
            backoff(1, 3600, 1, Some(Duration::from_secs(30))),
            Duration::from_secs(30)
        );
    }
}
