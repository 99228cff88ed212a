//! The adapter of `mediaforge:plugin@0.1.0` (`wit/plugin.wit`): the generated bindings of its
//! three worlds and the conversions between their types and the host's own (`plugins::types`);
//! the calls and the host imports are `adapter!` (`adapter.rs`), the same in every version.
//! Nothing outside `plugins/wit/` names a generated type, so a new contract version is a
//! sibling file, not a change to every caller.

use wasmtime::Store;
use wasmtime::component::{HasSelf, InstancePre, Linker};

use crate::plugins::types::{
    BuiltCommand, BuiltProbe, CallbackRequest, CommandPart, CompletionRequest, EventOutcome,
    InputFacts, JobEvent, PolicyDecision, Refusal, StagedInput,
};
use crate::plugins::{State, World};
use crate::task::{ProbeConfig, Task, TaskInput, TaskOutput};

pub(super) mod bindings {
    pub mod builder {
        wasmtime::component::bindgen!({
            path: "../wit",
            world: "command-builder",
            imports: { default: async },
            exports: { default: async },
        });
    }

    pub mod translator {
        wasmtime::component::bindgen!({
            path: "../wit",
            world: "translator",
            imports: { default: async },
            exports: { default: async },
            with: {
                "mediaforge:plugin/types": super::builder::mediaforge::plugin::types,
                "mediaforge:plugin/host": super::builder::mediaforge::plugin::host,
            },
        });
    }

    pub mod formatter {
        wasmtime::component::bindgen!({
            path: "../wit",
            world: "webhook-formatter",
            imports: { default: async },
            exports: { default: async },
            with: {
                "mediaforge:plugin/types": super::builder::mediaforge::plugin::types,
                "mediaforge:plugin/host": super::builder::mediaforge::plugin::host,
            },
        });
    }
}

use bindings::builder::exports::mediaforge::plugin::builder as wit_builder;
use bindings::builder::mediaforge::plugin::{host as wit_host, types};
use bindings::formatter::exports::mediaforge::plugin::format as wit_format;
use bindings::translator::exports::mediaforge::plugin::translate as wit_translate;
use bindings::translator::mediaforge::plugin::llm as wit_llm;

/// The contract this adapter speaks, for telling an author how their component differs.
pub const WIT: &str = include_str!("../../../../wit/plugin.wit");

/// The interface a component exports to implement `world` in this version.
pub fn export(world: World) -> Option<&'static str> {
    match world {
        World::CommandBuilder => Some("mediaforge:plugin/builder@0.1.0"),
        World::Translator => Some("mediaforge:plugin/translate@0.1.0"),
        World::WebhookFormatter => Some("mediaforge:plugin/format@0.1.0"),
        World::Recipe => None,
    }
}

impl types::Host for State {}

adapter!();

/// 0.1.0 has no `configure`: such a component cannot say whether its config will do.
async fn check_config(
    _pre: &InstancePre<State>,
    _instance: &wasmtime::component::Instance,
    _store: &mut Store<State>,
) -> wasmtime::Result<Option<Result<(), String>>> {
    Ok(None)
}

pub(super) fn from_wit_refusal(r: types::Refusal) -> Refusal {
    Refusal {
        message: r.message,
        subject: r.subject,
    }
}

fn from_wit_command(c: wit_builder::FfmpegCommand) -> BuiltCommand {
    let decisions = c.decisions.into_iter().map(from_wit_decision).collect();
    from_wit_parts(c.global_args, c.inputs, c.outputs, decisions)
}

pub(super) fn to_wit_task(task: &Task) -> types::Task {
    types::Task {
        inputs: task
            .inputs
            .iter()
            .map(|i| types::TaskInput {
                file_path: i.file_path.clone(),
                options: i.options.clone(),
            })
            .collect(),
        outputs: task
            .outputs
            .iter()
            .map(|o| types::TaskOutput {
                file: o.file.clone(),
                options: o.options.clone(),
                maps: o.maps.clone(),
            })
            .collect(),
        filter_complex: task.filter_complex.clone(),
        output_dir_id: task.output_dir_id.clone(),
    }
}

pub(super) fn from_wit_task(task: types::Task) -> Task {
    Task {
        inputs: task
            .inputs
            .into_iter()
            .map(|i| TaskInput {
                file_path: i.file_path,
                options: i.options,
            })
            .collect(),
        outputs: task
            .outputs
            .into_iter()
            .map(|o| TaskOutput {
                file: o.file,
                options: o.options,
                maps: o.maps,
            })
            .collect(),
        filter_complex: task.filter_complex,
        output_dir_id: task.output_dir_id,
        cache: true,
        split: true,
        export: None,
    }
}

pub(super) fn to_wit_probe(p: &ProbeConfig) -> types::ProbeConfig {
    types::ProbeConfig {
        format: p.format.clone(),
        streams: p.streams.clone(),
        chapters: p.chapters.clone(),
        programs: p.programs.clone(),
        frames: p.frames.clone(),
        packets: p.packets.clone(),
        error: p.error.clone(),
        select_streams: p.select_streams.clone(),
        read_intervals: p.read_intervals.clone(),
        count_frames: p.count_frames,
        skip_frame: p.skip_frame.clone(),
        analyzeduration: p.analyzeduration.clone(),
        probesize: p.probesize.clone(),
    }
}

pub(super) fn from_wit_probe(p: types::ProbeConfig) -> ProbeConfig {
    ProbeConfig {
        format: p.format,
        streams: p.streams,
        chapters: p.chapters,
        programs: p.programs,
        frames: p.frames,
        packets: p.packets,
        error: p.error,
        select_streams: p.select_streams,
        read_intervals: p.read_intervals,
        count_frames: p.count_frames,
        skip_frame: p.skip_frame,
        analyzeduration: p.analyzeduration,
        probesize: p.probesize,
    }
}

fn to_wit_event(e: &JobEvent) -> wit_format::JobEvent {
    let outcome = match &e.outcome {
        EventOutcome::Completed { files, usage } => {
            wit_format::Outcome::Completed((to_wit_files(files), to_wit_usage(usage)))
        }
        EventOutcome::Failed { error, .. } => wit_format::Outcome::Failed(error.clone()),
    };
    wit_format::JobEvent {
        event_id: e.event_id.clone(),
        job_id: e.job_id.clone(),
        outcome,
        occurred_at: e.occurred_at.clone(),
        webhook_url: e.webhook_url.clone(),
    }
}
