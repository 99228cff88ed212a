//! The adapter of `mediaforge:plugin@0.2.0` (`wit/0.2.0/plugin.wit`). Its `types` interface is
//! 0.1.0's unchanged, so those records are 0.1.0's generated ones (`with`) and their conversions
//! are shared; what changed has its own conversions here: named job-event fields, the
//! builder's `uncacheable` field, and the optional `configure` export.

use wasmtime::Store;
use wasmtime::component::{HasSelf, InstancePre, Linker};

use super::v0_1_0::{from_wit_probe, from_wit_refusal, from_wit_task, to_wit_probe, to_wit_task};
use crate::plugins::types::{
    BuiltCommand, BuiltProbe, CACHE_SUBJECT, CallbackRequest, CommandPart, CompletionRequest,
    EventOutcome, InputFacts, JobEvent, PolicyDecision, Refusal, StagedInput,
};
use crate::plugins::{State, World};
use crate::task::{ProbeConfig, Task};

/// The host's worlds of this version without `configure`, which a component may leave out (it
/// is looked up by name instead, `check_config`).
mod bindings {
    pub mod builder {
        wasmtime::component::bindgen!({
            path: "../wit/0.2.0",
            inline: "
                package mediaforge:host-v0-2-0;
                world command-builder {
                    import mediaforge:plugin/host@0.2.0;
                    export mediaforge:plugin/builder@0.2.0;
                }
            ",
            world: "mediaforge:host-v0-2-0/command-builder",
            imports: { default: async },
            exports: { default: async },
            with: {
                "mediaforge:plugin/types@0.2.0": crate::plugins::wit::v0_1_0::bindings::builder::mediaforge::plugin::types,
            },
        });
    }

    pub mod translator {
        wasmtime::component::bindgen!({
            path: "../wit/0.2.0",
            inline: "
                package mediaforge:host-v0-2-0;
                world translator {
                    import mediaforge:plugin/host@0.2.0;
                    import mediaforge:plugin/llm@0.2.0;
                    export mediaforge:plugin/translate@0.2.0;
                }
            ",
            world: "mediaforge:host-v0-2-0/translator",
            imports: { default: async },
            exports: { default: async },
            with: {
                "mediaforge:plugin/types@0.2.0": crate::plugins::wit::v0_1_0::bindings::builder::mediaforge::plugin::types,
                "mediaforge:plugin/host@0.2.0": super::builder::mediaforge::plugin::host,
            },
        });
    }

    pub mod formatter {
        wasmtime::component::bindgen!({
            path: "../wit/0.2.0",
            inline: "
                package mediaforge:host-v0-2-0;
                world webhook-formatter {
                    import mediaforge:plugin/host@0.2.0;
                    export mediaforge:plugin/format@0.2.0;
                }
            ",
            world: "mediaforge:host-v0-2-0/webhook-formatter",
            imports: { default: async },
            exports: { default: async },
            with: {
                "mediaforge:plugin/types@0.2.0": crate::plugins::wit::v0_1_0::bindings::builder::mediaforge::plugin::types,
                "mediaforge:plugin/host@0.2.0": super::builder::mediaforge::plugin::host,
            },
        });
    }
}

use super::v0_1_0::bindings::builder::mediaforge::plugin::types;
use bindings::builder::exports::mediaforge::plugin::builder as wit_builder;
use bindings::builder::mediaforge::plugin::host as wit_host;
use bindings::formatter::exports::mediaforge::plugin::format as wit_format;
use bindings::translator::exports::mediaforge::plugin::translate as wit_translate;
use bindings::translator::mediaforge::plugin::llm as wit_llm;

/// The contract this adapter speaks, for telling an author how their component differs.
pub const WIT: &str = include_str!("../../../../wit/0.2.0/plugin.wit");

/// The optional export every world of this version may have.
const CONFIGURE: &str = "mediaforge:plugin/configure@0.2.0";

/// The interface a component exports to implement `world` in this version.
pub fn export(world: World) -> Option<&'static str> {
    match world {
        World::CommandBuilder => Some("mediaforge:plugin/builder@0.2.0"),
        World::Translator => Some("mediaforge:plugin/translate@0.2.0"),
        World::WebhookFormatter => Some("mediaforge:plugin/format@0.2.0"),
        World::Recipe => None,
    }
}

adapter!();

/// Calls the component's `check-config` on `instance` (the one that type-checked it): `None`
/// when it has none.
pub async fn check_config(
    pre: &InstancePre<State>,
    instance: &wasmtime::component::Instance,
    store: &mut Store<State>,
) -> wasmtime::Result<Option<Result<(), String>>> {
    super::check_config_export(pre, instance, store, CONFIGURE).await
}

/// `uncacheable` becomes the host's `cache` decision (`types::cacheable`), last in the list.
fn from_wit_command(c: wit_builder::FfmpegCommand) -> BuiltCommand {
    let mut decisions: Vec<_> = c.decisions.into_iter().map(from_wit_decision).collect();
    if let Some(reason) = c.uncacheable {
        decisions.push(PolicyDecision {
            subject: CACHE_SUBJECT.into(),
            allowed: false,
            reason,
        });
    }
    from_wit_parts(c.global_args, c.inputs, c.outputs, decisions)
}

fn to_wit_event(e: &JobEvent) -> wit_format::JobEvent {
    let outcome = match &e.outcome {
        EventOutcome::Completed { files, usage } => {
            wit_format::Outcome::Completed(wit_format::Completion {
                files: to_wit_files(files),
                usage: to_wit_usage(usage),
            })
        }
        EventOutcome::Failed { error, details } => {
            wit_format::Outcome::Failed(wit_format::Failure {
                message: error.clone(),
                details: details.clone(),
            })
        }
    };
    wit_format::JobEvent {
        event_id: e.event_id.clone(),
        job_id: e.job_id.clone(),
        account_id: e.account_id.clone(),
        attempt: e.attempt,
        outcome,
        occurred_at: e.occurred_at.clone(),
        webhook_url: e.webhook_url.clone(),
    }
}
