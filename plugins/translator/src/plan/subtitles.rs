//! Subtitles from the task's own inputs: burnt into the picture with the `subtitles` filter
//! (the policy allows it for `@{name}` of a task input), or added as a subtitle track in a
//! codec the container holds.

use super::{PlanError, Planned, Planner};
use crate::media::{Kind, Media};
use crate::numbers::fmt_num;

/// Subtitle codec for a track in each container; `None`: copy what the input has.
fn track_codec(container: &str, input_codec: &str) -> Option<&'static str> {
    match (container, input_codec) {
        ("mp4" | "mov", _) => Some("mov_text"),
        ("mkv", "ass" | "ssa") => Some("ass"),
        ("mkv", _) => Some("srt"),
        ("webm", _) => Some("webvtt"),
        _ => None,
    }
}

/// Where the subtitles come from: a subtitle file, else an input's own subtitle track
/// ("subbed.mkv already has a text track: burn it in", "keep them as a track in the mp4",
/// "the subtitles of the mkv as an .srt").
fn source<'a, 'm>(media: &'a [Media<'m>]) -> Option<&'a Media<'m>> {
    media.iter().find(|m| m.kind == Kind::Subtitle).or_else(|| {
        media
            .iter()
            .find(|m| m.facts.streams.iter().any(|s| s.kind == "subtitle"))
    })
}

impl<'m> Planner<'m> {
    /// The subtitle input asked for, if any.
    pub(super) fn subtitle_input(&self) -> Planned<Option<&'m Media<'m>>> {
        if self.w.subtitles.is_none() {
            return Ok(None);
        }
        source(self.media).map(Some).ok_or(PlanError::NeedsInput(
            "subtitles need a subtitle file (.srt, .ass or .vtt) among the inputs",
        ))
    }

    /// The burn-in filter, for the end of the picture chain.
    /// A cut at the start is undone for the subtitles' sake: the picture's times start at 0
    /// after `-ss`, and the subtitles would show that much early ("burn the subtitles and
    /// remove the first 2 seconds" had shown them 2 s early). A part cut out of the middle
    /// shifts what follows it, and is refused.
    pub(super) fn burn_filter(&mut self) -> Planned<Option<String>> {
        match (self.subtitle_input()?, self.w.subtitles) {
            (Some(s), Some(true)) => {
                if self.span.cut.is_some() {
                    return Err(PlanError::NotSupported(
                        "burnt-in subtitles beside a part cut out of the middle would no longer match the picture after the cut; cut the subtitle file too, or burn them in first",
                    ));
                }
                self.tag("subtitled");
                let burn = format!("subtitles=@{{{}}}", s.name());
                Ok(Some(if self.span.start > 0.0 {
                    let start = fmt_num(self.span.start);
                    format!("setpts=PTS+{start}/TB,{burn},setpts=PTS-STARTPTS")
                } else {
                    burn
                }))
            }
            _ => Ok(None),
        }
    }

    /// Adds the subtitle input: unused by ffmpeg's default selection when burnt in (`-sn`),
    /// else mapped as a track next to the main input's picture and sound.
    pub(super) fn place_subtitles(&mut self, main: usize, with_sound: bool) -> Planned<()> {
        let Some(s) = self.subtitle_input()? else {
            return Ok(());
        };
        // The video's own track is read from the input already there.
        let si = match self.inputs.iter().position(|(i, _)| *i == s.index) {
            Some(at) if s.kind != Kind::Subtitle => at,
            _ => self.add_input(s, Vec::new()),
        };
        if self.w.subtitles == Some(true) {
            self.opts.push("-sn".into());
            return Ok(());
        }
        // A track keeps the file's own times: beside a cut start, a part cut out, a change of
        // speed or a repeat it would no longer match the picture (a cut's start had left the
        // subtitles 2 s early). A cut end is fine: the track simply ends with the output.
        if self.span.start > 0.0
            || self.span.cut.is_some()
            || self.w.speed.is_some()
            || self.w.repeat.is_some()
            || self.w.loop_for.is_some()
        {
            return Err(PlanError::NotSupported(
                "a subtitle track keeps its own times, and cut at the start, sped up or repeated it would no longer match the picture; burn the subtitles in, or change the subtitle file first",
            ));
        }
        let input_codec = s
            .facts
            .streams
            .iter()
            .find(|st| st.kind == "subtitle")
            .map_or("", |st| st.codec.as_str());
        let codec =
            track_codec(self.fmt.key, input_codec).ok_or_else(|| PlanError::CannotHold {
                container: self.fmt.ext,
                what: "subtitles".into(),
                instead: Some("mp4 or mkv"),
            })?;
        if self.maps.is_empty() {
            self.maps.push(format!("{main}:v:0"));
            if with_sound {
                self.maps.push(format!("{main}:a:0"));
            }
        }
        self.maps.push(format!("{si}:s:0"));
        self.opts.extend(["-c:s".to_string(), codec.to_string()]);
        self.tag("subtitled");
        Ok(())
    }
}

/// A subtitle file in another format ("convert subs.srt to WebVTT"), or the subtitle track of
/// a video as a file ("the subtitles of the mkv as an .srt"): `-map 0:s:0` with the format's
/// encoder. Nothing else is done in the same request: a subtitle file has no picture or sound.
pub(super) fn convert(
    w: &crate::wants::Wants,
    media: &[Media],
    key: &str,
) -> super::Planned<mediaforge_plugin::Task> {
    use mediaforge_plugin::{Task, TaskInput, TaskOutput};
    let (ext, codec) = match key {
        "vtt" => ("vtt", "webvtt"),
        "ass" => ("ass", "ass"),
        _ => ("srt", "subrip"),
    };
    let src = source(media).ok_or(PlanError::NeedsInput(
            "a subtitle file needs an input with subtitles: a subtitle file or a video with a subtitle track",
        ))?;
    if w.touches_picture() || w.touches_sound() || w.subtitles == Some(true) {
        return Err(PlanError::NotSupported(
            "a subtitle file is written on its own; ask for the other changes separately",
        ));
    }
    let stem = src.stem();
    let mut file = format!("{stem}.{ext}");
    if media.iter().any(|m| m.name().eq_ignore_ascii_case(&file)) {
        file = format!("{stem}_out.{ext}");
    }
    Ok(Task {
        inputs: vec![TaskInput {
            file_path: src.name().to_string(),
            options: Vec::new(),
        }],
        outputs: vec![TaskOutput {
            file,
            options: vec!["-c:s".into(), codec.into()],
            maps: vec!["0:s:0".into()],
        }],
        filter_complex: None,
        output_dir_id: None,
    })
}
