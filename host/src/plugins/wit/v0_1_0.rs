//! The adapter of `mediaforge:plugin@0.1.0` (`wit/plugin.wit`): the generated bindings of its
//! three worlds, the host imports they need, and the conversions between their types and the
//! host's own (`plugins::types`). Nothing outside this file names a generated type, so a new
//! contract version is a sibling file, not a change to every caller.

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
pub fn export(world: World) -> &'static str {
    match world {
        World::CommandBuilder => "mediaforge:plugin/builder@0.1.0",
        World::Translator => "mediaforge:plugin/translate@0.1.0",
        World::WebhookFormatter => "mediaforge:plugin/format@0.1.0",
    }
}

/// The host interfaces this version's components may import.
pub fn add_imports(linker: &mut Linker<State>, world: World) -> wasmtime::Result<()> {
    wit_host::add_to_linker::<State, HasSelf<State>>(linker, |s| s)?;
    if world == World::Translator {
        wit_llm::add_to_linker::<State, HasSelf<State>>(linker, |s| s)?;
    }
    Ok(())
}

impl wit_host::Host for State {
    async fn config(&mut self) -> String {
        self.config_json.to_string()
    }

    async fn log(&mut self, level: types::LogLevel, message: String) {
        self.plugin_log(self::level(level), &message);
    }
}

/// A plugin's log level (0.2.0 shares the type).
pub(super) fn level(level: types::LogLevel) -> tracing::Level {
    match level {
        types::LogLevel::Debug => tracing::Level::DEBUG,
        types::LogLevel::Info => tracing::Level::INFO,
        types::LogLevel::Warn => tracing::Level::WARN,
        types::LogLevel::Error => tracing::Level::ERROR,
    }
}

impl types::Host for State {}

impl wit_llm::Host for State {
    async fn complete(&mut self, request: wit_llm::CompletionRequest) -> Result<String, String> {
        let request = CompletionRequest {
            messages: request
                .messages
                .into_iter()
                .map(|m| (m.role, m.content))
                .collect(),
            json_schema: request.json_schema,
            max_tokens: request.max_tokens,
            temperature: request.temperature,
        };
        self.llm_complete(request).await
    }
}

/// A command-builder component of this version.
pub struct Builder(bindings::builder::CommandBuilderPre<State>);

impl Builder {
    pub async fn instantiate(&self, store: &mut Store<State>) -> wasmtime::Result<()> {
        self.0.instantiate_async(store).await.map(drop)
    }

    pub fn new(pre: InstancePre<State>) -> wasmtime::Result<Builder> {
        Ok(Builder(bindings::builder::CommandBuilderPre::new(pre)?))
    }

    pub async fn build_task(
        &self,
        store: &mut Store<State>,
        task: &Task,
        inputs: &[StagedInput],
        output_dir: &str,
    ) -> wasmtime::Result<Result<BuiltCommand, Refusal>> {
        let layout = wit_builder::JobLayout {
            inputs: inputs
                .iter()
                .map(|i| wit_builder::StagedInput {
                    name: i.name.clone(),
                    path: i.path.clone(),
                })
                .collect(),
            output_dir: output_dir.to_string(),
        };
        let plugin = self.0.instantiate_async(&mut *store).await?;
        let built = plugin
            .mediaforge_plugin_builder()
            .call_build_task(store, &to_wit_task(task), &layout)
            .await?;
        Ok(built.map(from_wit_command).map_err(from_wit_refusal))
    }

    pub async fn build_probe(
        &self,
        store: &mut Store<State>,
        probe: &ProbeConfig,
        input_path: &str,
    ) -> wasmtime::Result<Result<BuiltProbe, Refusal>> {
        let plugin = self.0.instantiate_async(&mut *store).await?;
        let built = plugin
            .mediaforge_plugin_builder()
            .call_build_probe(store, &to_wit_probe(probe), input_path)
            .await?;
        Ok(built
            .map(|p| BuiltProbe {
                args: p.args,
                decisions: p.decisions.into_iter().map(from_wit_decision).collect(),
            })
            .map_err(from_wit_refusal))
    }
}

/// A translator component of this version.
pub struct Translator(bindings::translator::TranslatorPre<State>);

impl Translator {
    pub async fn instantiate(&self, store: &mut Store<State>) -> wasmtime::Result<()> {
        self.0.instantiate_async(store).await.map(drop)
    }

    pub fn new(pre: InstancePre<State>) -> wasmtime::Result<Translator> {
        Ok(Translator(bindings::translator::TranslatorPre::new(pre)?))
    }

    pub async fn translate_task(
        &self,
        store: &mut Store<State>,
        instructions: &str,
        inputs: &[InputFacts],
    ) -> wasmtime::Result<Result<Task, Refusal>> {
        let inputs: Vec<_> = inputs.iter().map(to_wit_facts).collect();
        let plugin = self.0.instantiate_async(&mut *store).await?;
        let task = plugin
            .mediaforge_plugin_translate()
            .call_translate_task(store, instructions, &inputs)
            .await?;
        Ok(task.map(from_wit_task).map_err(from_wit_refusal))
    }

    pub async fn translate_probe(
        &self,
        store: &mut Store<State>,
        instructions: &str,
        input: &InputFacts,
    ) -> wasmtime::Result<Result<ProbeConfig, Refusal>> {
        let plugin = self.0.instantiate_async(&mut *store).await?;
        let probe = plugin
            .mediaforge_plugin_translate()
            .call_translate_probe(store, instructions, &to_wit_facts(input))
            .await?;
        Ok(probe.map(from_wit_probe).map_err(from_wit_refusal))
    }
}

/// A webhook-formatter component of this version.
pub struct Formatter(bindings::formatter::WebhookFormatterPre<State>);

impl Formatter {
    pub async fn instantiate(&self, store: &mut Store<State>) -> wasmtime::Result<()> {
        self.0.instantiate_async(store).await.map(drop)
    }

    pub fn new(pre: InstancePre<State>) -> wasmtime::Result<Formatter> {
        Ok(Formatter(bindings::formatter::WebhookFormatterPre::new(
            pre,
        )?))
    }

    pub async fn format_event(
        &self,
        store: &mut Store<State>,
        event: &JobEvent,
    ) -> wasmtime::Result<Result<CallbackRequest, Refusal>> {
        let plugin = self.0.instantiate_async(&mut *store).await?;
        let request = plugin
            .mediaforge_plugin_format()
            .call_format_event(store, &to_wit_event(event))
            .await?;
        Ok(request
            .map(|r| CallbackRequest {
                content_type: r.content_type,
                body: r.body,
                headers: r.headers.into_iter().map(|h| (h.name, h.value)).collect(),
            })
            .map_err(|message| Refusal {
                message,
                subject: None,
            }))
    }
}

pub(super) fn from_wit_refusal(r: types::Refusal) -> Refusal {
    Refusal {
        message: r.message,
        subject: r.subject,
    }
}

fn from_wit_decision(d: wit_builder::Decision) -> PolicyDecision {
    PolicyDecision {
        subject: d.subject,
        allowed: d.allowed,
        reason: d.reason,
    }
}

fn from_wit_command(c: wit_builder::FfmpegCommand) -> BuiltCommand {
    BuiltCommand {
        global_args: c.global_args,
        inputs: c
            .inputs
            .into_iter()
            .map(|i| CommandPart {
                args: i.args,
                path: i.path,
            })
            .collect(),
        outputs: c
            .outputs
            .into_iter()
            .map(|o| CommandPart {
                args: o.args,
                path: o.path,
            })
            .collect(),
        decisions: c.decisions.into_iter().map(from_wit_decision).collect(),
    }
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

fn to_wit_facts(f: &InputFacts) -> wit_translate::InputFacts {
    wit_translate::InputFacts {
        name: f.name.clone(),
        size: f.size,
        container: f.container.clone(),
        duration: f.duration,
        streams: f
            .streams
            .iter()
            .map(|s| wit_translate::StreamFacts {
                index: s.index,
                kind: s.kind.clone(),
                codec: s.codec.clone(),
                width: s.width,
                height: s.height,
                frame_rate: s.frame_rate,
                channels: s.channels,
                sample_rate: s.sample_rate,
                duration: s.duration,
            })
            .collect(),
    }
}

fn to_wit_event(e: &JobEvent) -> wit_format::JobEvent {
    let outcome = match &e.outcome {
        EventOutcome::Completed { files, usage } => wit_format::Outcome::Completed((
            files
                .iter()
                .map(|f| wit_format::OutputFile {
                    file_name: f.file_name.clone(),
                    size_bytes: f.size_bytes,
                    download_url: f.download_url.clone(),
                })
                .collect(),
            wit_format::Usage {
                time_sec: usage.time_sec,
                input_size_gb: usage.input_size_gb,
                output_size_gb: usage.output_size_gb,
                gb_sec: usage.gb_sec,
            },
        )),
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
