//! Serving, at the top of the HTTP layer: the state started (`app.rs`), the routes wired to it on the listeners, the job
//! workers, the plugin reloader and the sweeper running beside it, until a signal.

use std::time::Duration;

use salvo::prelude::*;

use crate::app::AppState;
use crate::config::Config;
use crate::sweeper;

/// Serves until SIGINT/SIGTERM, then stops taking requests and lets running ones finish.
pub async fn serve(cfg: Config) -> anyhow::Result<()> {
    // Bound first, so the port is known (listen may say port 0) before URLs are made, and the
    // operator listener too, so a wrong address stops start-up.
    let acceptor = bind("server.listen", &cfg.server.listen).await?;
    let addr = acceptor.local_addr()?;
    let operator = match cfg.server.operator_listen.as_str() {
        "" => None,
        listen => {
            let acceptor = bind("server.operator_listen", listen).await?;
            tracing::info!("operator listener on http://{}", acceptor.local_addr()?);
            Some(acceptor)
        }
    };
    let state = AppState::start(cfg, addr).await?;
    tokio::spawn(sweeper::run(state.clone()));
    crate::plugins::reload::spawn(state.plugins.clone(), state.cfg.plugins.watch)?;
    crate::jobs::worker::spawn(&state);
    if state.cfg.jobs.live_queries {
        let watching = state.clone();
        tokio::spawn(async move { watching.auth.watch().await });
    }
    let server = Server::new(acceptor);
    let mut handles = vec![server.handle()];
    if let Some(acceptor) = operator {
        let operator = Server::new(acceptor);
        handles.push(operator.handle());
        let service = super::operator_service(state.clone());
        tokio::spawn(async move {
            if let Err(e) = operator.try_serve(service).await {
                tracing::error!("operator listener stopped: {e}");
            }
        });
    }
    let stopping = state.stopping.clone();
    // Installed before "listening" is announced: a SIGTERM that follows at once must find it.
    let signalled = shutdown_signal()?;
    tokio::spawn(async move {
        signalled.await;
        tracing::info!("shutting down: no new jobs; open requests get 30 s");
        stopping.cancel();
        for handle in handles {
            handle.stop_graceful(Some(Duration::from_secs(30)));
        }
    });
    tracing::info!("listening on http://{addr}");
    println!("mediaforge listening on http://{addr}");
    server.try_serve(super::service(state.clone())).await?;
    // Running jobs may finish; one that does not within the grace period is given back by its
    // lease lapsing (another instance, or this one after a restart, runs it).
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while state.running_jobs.load(std::sync::atomic::Ordering::SeqCst) > 0
        && std::time::Instant::now() < deadline
    {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    tracing::info!("stopped");
    Ok(())
}

async fn bind(key: &str, listen: &str) -> anyhow::Result<salvo::conn::tcp::TcpAcceptor> {
    TcpListener::new(listen.to_string())
        .try_bind()
        .await
        .map_err(|e| anyhow::anyhow!("config key `{key}`: cannot listen on {listen}: {e}"))
}

/// SIGTERM or SIGINT, both handlers installed now (not when the future is first polled).
fn shutdown_signal() -> anyhow::Result<impl std::future::Future<Output = ()>> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut term = signal(SignalKind::terminate())?;
    let mut int = signal(SignalKind::interrupt())?;
    Ok(async move {
        tokio::select! {
            _ = int.recv() => {}
            _ = term.recv() => {}
        }
    })
}
