//! Typed calls into the webhook-formatter plugin.

use super::bindings::formatter::exports::mediaforge::plugin::format as wit;
use super::{PluginError, PluginHost, World};

pub use wit::{CallbackRequest, JobEvent, Outcome, OutputFile, Usage};

impl PluginHost {
    pub async fn format_event(&self, event: JobEvent) -> Result<CallbackRequest, PluginError> {
        let result = self
            .call(
                self.formatter.as_ref(),
                World::WebhookFormatter,
                move |b, store| {
                    Box::pin(async move {
                        b.mediaforge_plugin_format()
                            .call_format_event(store, &event)
                            .await
                    })
                },
            )
            .await?;
        result.map_err(|message| PluginError::Refused {
            message,
            subject: None,
        })
    }
}
