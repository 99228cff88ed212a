//! Typed calls into the command-builder plugin.

use super::bindings::builder::exports::mediaforge::plugin::builder as wit;
use super::bindings::types;
use super::{PluginError, PluginHost, World};
use crate::task::{ProbeConfig, Task};

/// An input staged in the job's scratch directory.
#[derive(Debug, Clone)]
pub struct StagedInput {
    pub name: String,
    pub path: String,
}

pub use wit::{Decision, FfmpegCommand, FfprobeCommand};

impl PluginHost {
    pub async fn build_task(
        &self,
        task: &Task,
        inputs: &[StagedInput],
        output_dir: &str,
    ) -> Result<FfmpegCommand, PluginError> {
        let task = to_wit_task(task);
        let layout = wit::JobLayout {
            inputs: inputs
                .iter()
                .map(|i| wit::StagedInput {
                    name: i.name.clone(),
                    path: i.path.clone(),
                })
                .collect(),
            output_dir: output_dir.to_string(),
        };
        let result = self
            .call(
                self.builder.as_ref(),
                World::CommandBuilder,
                move |b, store| {
                    Box::pin(async move {
                        b.mediaforge_plugin_builder()
                            .call_build_task(store, &task, &layout)
                            .await
                    })
                },
            )
            .await?;
        result.map_err(refused)
    }

    pub async fn build_probe(
        &self,
        probe: &ProbeConfig,
        input_path: &str,
    ) -> Result<FfprobeCommand, PluginError> {
        let probe = to_wit_probe(probe);
        let input_path = input_path.to_string();
        let result = self
            .call(
                self.builder.as_ref(),
                World::CommandBuilder,
                move |b, store| {
                    Box::pin(async move {
                        b.mediaforge_plugin_builder()
                            .call_build_probe(store, &probe, &input_path)
                            .await
                    })
                },
            )
            .await?;
        result.map_err(refused)
    }
}

pub(super) fn refused(r: types::Refusal) -> PluginError {
    let message: String = r.message.chars().take(1000).collect();
    PluginError::Refused {
        message,
        subject: r.subject,
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
            .map(|i| crate::task::TaskInput {
                file_path: i.file_path,
                options: i.options,
            })
            .collect(),
        outputs: task
            .outputs
            .into_iter()
            .map(|o| crate::task::TaskOutput {
                file: o.file,
                options: o.options,
                maps: o.maps,
            })
            .collect(),
        filter_complex: task.filter_complex,
        output_dir_id: task.output_dir_id,
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
