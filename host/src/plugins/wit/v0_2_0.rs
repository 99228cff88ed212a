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
pub fn export(world: World) -> &'static str {
    match world {
        World::CommandBuilder => "mediaforge:plugin/builder@0.2.0",
        World::Translator => "mediaforge:plugin/translate@0.2.0",
        World::WebhookFormatter => "mediaforge:plugin/format@0.2.0",
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
        self.plugin_log(super::v0_1_0::level(level), &message);
    }
}

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

/// Calls the component's `check-config` in a fresh instance: `None` when it has none.
pub async fn check_config(
    pre: &InstancePre<State>,
    store: &mut Store<State>,
) -> wasmtime::Result<Option<Result<(), String>>> {
    let component = pre.component();
    let Some(func) = component
        .get_export_index(None, CONFIGURE)
        .and_then(|i| component.get_export_index(Some(&i), "check-config"))
    else {
        return Ok(None);
    };
    let instance = pre.instantiate_async(&mut *store).await?;
    let check = instance.get_typed_func::<(), (Result<(), String>,)>(&mut *store, &func)?;
    let (answer,) = check.call_async(&mut *store, ()).await?;
    Ok(Some(answer))
}

/// A command-builder component of this version.
pub struct Builder(bindings::builder::CommandBuilderPre<State>);

impl Builder {
    pub async fn instantiate(&self, store: &mut Store<State>) -> wasmtime::Result<()> {
        self.0.instantiate_async(store).await.map(drop)
    }

    pub async fn check_config(
        &self,
        store: &mut Store<State>,
    ) -> wasmtime::Result<Option<Result<(), String>>> {
        check_config(self.0.instance_pre(), store).await
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

    pub async fn check_config(
        &self,
        store: &mut Store<State>,
    ) -> wasmtime::Result<Option<Result<(), String>>> {
        check_config(self.0.instance_pre(), store).await
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

    pub async fn check_config(
        &self,
        store: &mut Store<State>,
    ) -> wasmtime::Result<Option<Result<(), String>>> {
        check_config(self.0.instance_pre(), store).await
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

fn from_wit_decision(d: wit_builder::Decision) -> PolicyDecision {
    PolicyDecision {
        subject: d.subject,
        allowed: d.allowed,
        reason: d.reason,
    }
}

/// `uncacheable` becomes the host's `cache` decision (`types::cacheable`), last in the list.
fn from_wit_command(c: wit_builder::FfmpegCommand) -> BuiltCommand {
    let part = |args, path| CommandPart { args, path };
    let mut decisions: Vec<_> = c.decisions.into_iter().map(from_wit_decision).collect();
    if let Some(reason) = c.uncacheable {
        decisions.push(PolicyDecision {
            subject: CACHE_SUBJECT.into(),
            allowed: false,
            reason,
        });
    }
    BuiltCommand {
        global_args: c.global_args,
        inputs: c.inputs.into_iter().map(|i| part(i.args, i.path)).collect(),
        outputs: c
            .outputs
            .into_iter()
            .map(|o| part(o.args, o.path))
            .collect(),
        decisions,
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
        EventOutcome::Completed { files, usage } => {
            wit_format::Outcome::Completed(wit_format::Completion {
                files: files
                    .iter()
                    .map(|f| wit_format::OutputFile {
                        file_name: f.file_name.clone(),
                        size_bytes: f.size_bytes,
                        download_url: f.download_url.clone(),
                    })
                    .collect(),
                usage: wit_format::Usage {
                    time_sec: usage.time_sec,
                    input_size_gb: usage.input_size_gb,
                    output_size_gb: usage.output_size_gb,
                    gb_sec: usage.gb_sec,
                },
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
