//! A pace for request bodies: after a grace of `server.body_timeout_s`, a body must have arrived
//! at `server.body_min_bytes_per_s` on average, else the request is answered 408. Without it a
//! client dripping a byte every few seconds holds a connection and a handler forever (hyper's
//! and reqwest's idle timeouts reset with every byte).

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use salvo::BoxedError;
use salvo::http::ReqBody;
use salvo::http::body::{Body, Frame, SizeHint};
use salvo::prelude::*;
use tokio::time::{Instant, Sleep};

use super::state;
use crate::error::AppError;

#[handler]
pub async fn pace_body(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
    ctrl: &mut FlowCtrl,
) {
    let body = req.take_body();
    if body.is_none() || body.is_once() {
        req.replace_body(body);
        ctrl.call_next(req, depot, res).await;
        return;
    }
    let server = &state(depot).cfg.server;
    let (grace_s, min_rate) = (server.body_timeout_s, server.body_min_bytes_per_s.max(1));
    let late = Arc::new(AtomicBool::new(false));
    req.replace_body(ReqBody::Boxed {
        inner: Box::pin(Paced {
            inner: body,
            started: Instant::now(),
            grace: Duration::from_secs(grace_s),
            min_rate,
            received: 0,
            timer: Box::pin(tokio::time::sleep(Duration::ZERO)),
            late: late.clone(),
        }),
        fuse_config: None,
    });
    ctrl.call_next(req, depot, res).await;
    // Whatever the handler made of its failed read (a JSON error, an upload error), the cause
    // is the pace: say so. Nothing was stored: the handler saw the body fail.
    if late.load(Ordering::SeqCst) {
        res.take_body();
        // The client may still be sending: this connection carries no further request.
        res.headers_mut().insert(
            salvo::http::header::CONNECTION,
            salvo::http::HeaderValue::from_static("close"),
        );
        res.render(AppError::BodyTooSlow {
            min_bytes_per_s: min_rate,
            grace_s,
        });
    }
}

struct Paced {
    inner: ReqBody,
    started: Instant,
    grace: Duration,
    min_rate: u64,
    received: u64,
    timer: Pin<Box<Sleep>>,
    late: Arc<AtomicBool>,
}

impl Paced {
    /// When the bytes so far stop being enough: the grace, plus a second per `min_rate` bytes.
    fn due(&self) -> Instant {
        self.started
            + self.grace
            + Duration::from_secs_f64(self.received as f64 / self.min_rate as f64)
    }
}

impl Body for Paced {
    type Data = Bytes;
    type Error = BoxedError;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxedError>>> {
        let this = self.get_mut();
        if this.late.load(Ordering::SeqCst) {
            return Poll::Ready(Some(Err("request body too slow".into())));
        }
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => {
                if let Some(data) = frame.data_ref() {
                    this.received += data.len() as u64;
                }
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Pending => {
                let due = this.due();
                this.timer.as_mut().reset(due);
                match this.timer.as_mut().poll(cx) {
                    Poll::Ready(()) => {
                        this.late.store(true, Ordering::SeqCst);
                        Poll::Ready(Some(Err("request body too slow".into())))
                    }
                    Poll::Pending => Poll::Pending,
                }
            }
            Poll::Ready(Some(Err(e))) => Poll::Ready(Some(Err(e.into()))),
            Poll::Ready(None) => Poll::Ready(None),
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}
