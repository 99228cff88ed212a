//! A webhook formatter built with the SDK that panics on every event: the call traps, and the
//! SDK's panic hook puts the message in the host's log first.

use mediaforge_plugin::{CallbackRequest, JobEvent, NoConfig, WebhookFormatter};

struct Panicking;

impl WebhookFormatter for Panicking {
    type Config = NoConfig;

    fn format_event(_: &NoConfig, event: JobEvent) -> Result<CallbackRequest, String> {
        panic!("deliberate panic for {}", event.job_id)
    }
}

mediaforge_plugin::export_webhook_formatter!(Panicking);
