//! Hot reload: on SIGHUP, and with `plugins.watch` when a loaded component's file changes,
//! every world's component is loaded again and swapped in at once (`PluginHost::reload`).

use std::sync::Arc;
use std::time::Duration;

use tokio::signal::unix::{SignalKind, signal};

use super::PluginHost;

/// How often `watch` looks at the files (a stat each).
const WATCH_EVERY: Duration = Duration::from_secs(1);

pub fn spawn(plugins: Arc<PluginHost>, watch: bool) -> anyhow::Result<()> {
    let mut hangup = signal(SignalKind::hangup())?;
    tokio::spawn(async move {
        let _task = crate::metrics::background("plugin_reload");
        let mut seen = plugins.stamps();
        loop {
            tokio::select! {
                _ = hangup.recv() => {
                    tracing::info!("SIGHUP: reloading plugins");
                    plugins.reload().await;
                }
                _ = tokio::time::sleep(WATCH_EVERY), if watch => {
                    if plugins.stamps() == seen {
                        continue;
                    }
                    tracing::info!("a plugin file changed: reloading plugins");
                    // A file caught half-written fails its checks; the next change loads it.
                    plugins.reload().await;
                }
            }
            seen = plugins.stamps();
        }
    });
    Ok(())
}
