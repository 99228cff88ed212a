//! What every contract version's adapter has in common, as a macro each `v*.rs` invokes: the
//! three component types and the calls the host makes through them, the host imports, and the
//! conversions whose shape no version has changed. Each file's generated types differ, so the
//! code is shared as tokens; the invoking file provides `bindings` (the generated modules), the
//! aliases `wit_builder`, `wit_translate`, `wit_format`, `wit_host`, `wit_llm` and `types`, and
//! the conversions that differ between versions (`to_wit_task`, `from_wit_task`,
//! `to_wit_probe`, `from_wit_probe`, `from_wit_refusal`, `from_wit_command`, `to_wit_event`)
//! and `check_config`.

/// A component type of one version: its pre-instantiated form, instantiated once to check
/// its types, and that instance asked about its config (`check_config` of the invoking file).
macro_rules! component {
    ($name:ident, $pre:ty, $world:ty, $doc:literal) => {
        #[doc = $doc]
        pub struct $name($pre);

        impl $name {
            pub fn new(pre: InstancePre<State>) -> wasmtime::Result<$name> {
                Ok($name(<$pre>::new(pre)?))
            }

            /// An instance whose exports were found and type-checked as this version has them.
            pub async fn instantiate(
                &self,
                store: &mut Store<State>,
            ) -> wasmtime::Result<wasmtime::component::Instance> {
                let instance = self.0.instance_pre().instantiate_async(&mut *store).await?;
                <$world>::new(&mut *store, &instance)?;
                Ok(instance)
            }

            pub async fn check_config(
                &self,
                store: &mut Store<State>,
                instance: &wasmtime::component::Instance,
            ) -> wasmtime::Result<Option<Result<(), String>>> {
                check_config(self.0.instance_pre(), instance, store).await
            }
        }
    };
}

/// `to_wit_facts`: the host's input facts as a version's generated records, found in module
/// `$m` (the translator's `translate`, or 0.3.0's `facts`: the same records in each).
macro_rules! facts_to_wit {
    ($m:ident) => {
        fn to_wit_facts(f: &InputFacts) -> $m::InputFacts {
            $m::InputFacts {
                name: f.name.clone(),
                size: f.size,
                container: f.container.clone(),
                duration: f.duration,
                streams: f
                    .streams
                    .iter()
                    .map(|s| $m::StreamFacts {
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
    };
}

/// The `llm` import, as every version with a translator has it (the invoking file's `wit_llm`).
macro_rules! llm_host {
    () => {
        impl wit_llm::Host for State {
            async fn complete(
                &mut self,
                request: wit_llm::CompletionRequest,
            ) -> Result<String, String> {
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
    };
}

/// A translator component's `translate_probe`, unchanged in every version (inside its `impl`).
macro_rules! translate_probe {
    () => {
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
    };
}

macro_rules! adapter {
    () => {
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
                self.plugin_log(super::level(level), &message);
            }
        }

        llm_host!();

        component!(
            Builder,
            bindings::builder::CommandBuilderPre<State>,
            bindings::builder::CommandBuilder,
            "A command-builder component of this version."
        );

        impl Builder {
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

        component!(
            Translator,
            bindings::translator::TranslatorPre<State>,
            bindings::translator::Translator,
            "A translator component of this version."
        );

        impl Translator {
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

            translate_probe!();
        }

        component!(
            Formatter,
            bindings::formatter::WebhookFormatterPre<State>,
            bindings::formatter::WebhookFormatter,
            "A webhook-formatter component of this version."
        );

        impl Formatter {
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

        /// A built command's parts, whatever else the version's command holds.
        fn from_wit_parts(
            global_args: Vec<String>,
            inputs: Vec<wit_builder::CommandInput>,
            outputs: Vec<wit_builder::CommandOutput>,
            decisions: Vec<PolicyDecision>,
        ) -> BuiltCommand {
            let part = |args, path| CommandPart { args, path };
            BuiltCommand {
                global_args,
                inputs: inputs.into_iter().map(|i| part(i.args, i.path)).collect(),
                outputs: outputs.into_iter().map(|o| part(o.args, o.path)).collect(),
                decisions,
            }
        }

        /// A completed job's files and usage, as every version's event has them.
        fn to_wit_files(
            files: &[$crate::plugins::types::EventFile],
        ) -> Vec<wit_format::OutputFile> {
            files
                .iter()
                .map(|f| wit_format::OutputFile {
                    file_name: f.file_name.clone(),
                    size_bytes: f.size_bytes,
                    download_url: f.download_url.clone(),
                })
                .collect()
        }

        fn to_wit_usage(usage: &$crate::usage::Usage) -> wit_format::Usage {
            wit_format::Usage {
                time_sec: usage.time_sec,
                input_size_gb: usage.input_size_gb,
                output_size_gb: usage.output_size_gb,
                gb_sec: usage.gb_sec,
            }
        }

        facts_to_wit!(wit_translate);
    };
}
