//! Calls into the webhook-formatter plugin.

use super::types::{CallbackRequest, JobEvent};
use super::{PluginError, PluginHost, World};

impl PluginHost {
    pub async fn format_event(&self, event: &JobEvent) -> Result<CallbackRequest, PluginError> {
        let event = event.clone();
        self.call(
            |w| w.formatter.as_ref(),
            World::WebhookFormatter,
            move |f, store| Box::pin(async move { f.format_event(store, &event).await }),
        )
        .await
    }
}
