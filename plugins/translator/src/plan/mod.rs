//! What is wanted + what the inputs are → a task: which inputs, their options, the filter
//! graph, codecs, stream maps and the output name.
//!
//! - `choose`: the main input, how other inputs join it, the output kind and format;
//! - `span`: the part of the main input used;
//! - `picture` (with `resize`), `timing`, `sound`: the filter chains;
//! - `encode`: video codec and rate control; `sound` also picks the audio codec;
//! - `video` (with `joins`), `stills`: the task for each kind of output;
//! - `naming`: the output file name; `error`: why a plan cannot be made.

mod checks;
mod choose;
mod crop;
mod encode;
pub mod error;
mod joins;
mod naming;
mod pad;
mod picture;
mod repeat;
mod resize;
mod sound;
mod span;
mod stills;
mod subtitles;
mod timing;
mod video;

use crate::formats::Format;
use crate::intents::{Level, LoopTo, Shown, Understanding};
use crate::media::{Kind, Media};
use crate::numbers::fmt_num;
use crate::wants::Wants;
use choose::{Join, Mode};
pub use error::{PlanError, Planned};
use mediaforge_plugin::InputFacts;
use mediaforge_plugin::{Task, TaskInput, TaskOutput};
use span::Span;

/// Longest side of a GIF unless asked otherwise, and its frame rate.
const GIF_WIDTH: u32 = 480;
const GIF_FPS: f64 = 10.0;
/// A "smooth" GIF's frame rate: 5 hundredths of a second a frame (GIF delays are counted in
/// hundredths).
const GIF_SMOOTH_FPS: f64 = 20.0;
/// Length of a video made from a still picture when none is given.
const STILL_SECONDS: f64 = 5.0;
/// Share of the main picture's width a watermark gets, unless "small"/"large" says otherwise.
const OVERLAY_SHARE: f64 = 0.2;

pub fn plan(u: &Understanding, facts: &[InputFacts]) -> Planned<Task> {
    let media: Vec<Media> = facts
        .iter()
        .enumerate()
        .map(|(i, f)| Media::new(i, f))
        .collect();
    if media.is_empty() {
        return Err(PlanError::NoInput);
    }
    let w = Wants::from(u);
    if let Some(why) = &w.unsupported {
        return Err(PlanError::Unsupported(why.clone()));
    }
    if let Some(what) = w.conflicts.first() {
        return Err(PlanError::Unsupported(format!(
            "it names two different {what}, and which one is meant cannot be told; name one"
        )));
    }
    // Two different containers asked for ("to webm ... to ogg"): either answer would ignore
    // the other, so neither is guessed. An input's own format ("convert this mp4 to webm")
    // names the input, not an output.
    let own: Vec<&str> = media
        .iter()
        .filter_map(|m| m.format.map(|f| f.key))
        .collect();
    let mut targets: Vec<&str> = Vec::new();
    for (k, how) in &w.formats {
        if *how == crate::intents::FormatHow::Target
            && !own.contains(&k.as_str())
            && !targets.contains(&k.as_str())
        {
            targets.push(k);
        }
    }
    if let [a, b, ..] = targets.as_slice() {
        return Err(PlanError::Unsupported(format!(
            "it asks for both {a} and {b} as the output format; ask for one"
        )));
    }
    if let Some(key) = w.sub_format.clone() {
        return subtitles::convert(&w, &media, &key);
    }
    let main = choose::pick_main(&media);
    // "trim song.mp3 to 5 seconds and add it as background music": a cut or a change said
    // beside another input's name is that input's, and would be made to the main one.
    for (c, name) in &u.files_in {
        let other = media
            .iter()
            .any(|m| m.index != main.index && m.name().eq_ignore_ascii_case(name));
        let changed = u.heard.iter().zip(&u.clause_of).find(|((i, _), ic)| {
            *ic == c
                && (matches!(i, crate::intents::Intent::Trim(_))
                    || i.changes_picture()
                    || (i.is_effect() && !matches!(i, crate::intents::Intent::Volume(_))))
        });
        if other && let Some(((_, words), _)) = changed {
            return Err(PlanError::Unsupported(format!(
                "it asks to change {name} (\"{words}\"), and only the main input ({}) is cut or changed; the change would be made to it",
                main.name()
            )));
        }
    }
    let join = match choose::join(&media, main, &w)? {
        Join::Concat(list) => Join::Concat(choose::join_order(list, u, &w.join_order)?),
        other => other,
    };
    // A picture laid over a video turned or mirrored would turn with it: "add the logo at the
    // bottom and rotate the video 90 degrees" had put the logo on its side at the left
    // (2026-11-28). Which of the two the turn is for is not told: refused by name.
    if matches!(join, Join::Overlay(_)) && (w.rotate != 0 || w.hflip || w.vflip) {
        return Err(PlanError::Unsupported(
            "a picture laid over a video that is also turned or mirrored would turn with it; turn the video in one request, then add the picture in another".into(),
        ));
    }
    // "small", "large" size what is laid over the picture; with nothing laid over it and no
    // size or compression named beside it ("a small mp3, under 100kb", "a tiny gif, 500 px
    // wide" name theirs), the word would be dropped ("convert it to a small mp4" had answered a
    // copy of the same size).
    let sized = w.resize.is_some()
        || w.crop.is_some()
        || w.compress.is_some()
        || w.target_size.is_some()
        || w.target_factor.is_some()
        || w.crf.is_some();
    if w.overlay_size.is_some() && !sized && !matches!(join, Join::Overlay(_)) {
        return Err(PlanError::NotSupported(
            "\"small\" or \"large\" sizes a picture laid over the video, and nothing is laid over it; say the size you want (\"resize it to 640 wide\") or \"compress it\"",
        ));
    }
    // Ending with the shorter input is said of two played together: a stack ends so already,
    // a video laid over is cut to it (`joins.rs`); elsewhere (a still picture has no length)
    // it would be dropped.
    if w.end_shortest
        && !matches!(join, Join::Stack(..) | Join::ReplaceAudio(_))
        && !matches!(&join, Join::Overlay(l) if l.kind == Kind::Video)
    {
        return Err(PlanError::Unsupported(
            "ending with the shorter input is said of two inputs played together (side by side, one laid over the other, or a sound put in another's place)".into(),
        ));
    }
    let target = choose::target_format(&w, &media);
    let mode = choose::mode(&w, main, target, &join)?;
    checks::carried_by(&w, main, mode)?;
    let fmt = choose::output_format(&w, mode, target, main)?;
    checks::picture_made_smaller(&w, main, mode, fmt)?;
    let mut p = Planner {
        w,
        media: &media,
        main,
        join,
        mode,
        fmt,
        span: Span::default(),
        inputs: Vec::new(),
        opts: Vec::new(),
        maps: Vec::new(),
        complex: None,
        tags: Vec::new(),
    };
    // Changes to a kind of stream the input lacks cannot be made; say so rather than
    // ignore them.
    if p.w.sound_only()
        && !main.has_audio()
        && !matches!(p.join, Join::ReplaceAudio(_) | Join::Mix(_))
    {
        return Err(PlanError::NoStream {
            file: main.name().into(),
            kind: "audio",
        });
    }
    if p.w.picture_only() && main.video.is_none() && main.kind != Kind::Unknown {
        return Err(PlanError::NoStream {
            file: main.name().into(),
            kind: "video",
        });
    }
    // "burn the subtitles in yellow" had burnt them white: a colour only padding and fades
    // take (added time's colour is its own) is refused where nothing takes it.
    if let Some(c) = &p.w.color
        && (p.w.pad.is_none() || p.w.blur_fill)
    {
        return Err(PlanError::Unsupported(format!(
            "it names a colour ({c}), and nothing asked takes one here (only bars, borders and fades are coloured)"
        )));
    }
    // "smooth", "a good palette", "looping" are said of a GIF; of a video they would be dropped.
    if p.w.gif_look && p.mode != Mode::Gif {
        return Err(PlanError::NotSupported(
            "it says how a GIF should look (smooth, its palette, looping), and the output is not a GIF",
        ));
    }
    // "as long as the song": a picture looped to it or a still shown while it plays, else
    // nothing makes it so.
    if p.w.length_of_sound
        && p.w.loop_to != Some(LoopTo::Picture)
        && !(main.kind == Kind::Still && matches!(p.join, Join::ReplaceAudio(_)))
    {
        return Err(PlanError::NotSupported(
            "it asks for the result to last as long as the sound, and nothing asked makes it so (\"loop the video until the song ends\")",
        ));
    }
    // "as long as the video": the sound laid under it lasts at least as long, or is looped to
    // it; nothing else changes the length. Else refused (a shorter sound ends the output).
    if p.w.length_of_picture {
        let at_least = |a: &Media| matches!((a.duration(), main.duration()), (Some(s), Some(v)) if s + 0.05 >= v);
        let sound_fits = match p.join {
            Join::None | Join::Overlay(_) => true,
            Join::ReplaceAudio(a) | Join::Mix(a) | Join::AddTrack(a) => {
                at_least(a) || p.w.loop_to == Some(LoopTo::Sound)
            }
            _ => false,
        };
        let unchanged = p.w.trims.is_empty()
            && p.w.speed.is_none()
            && p.w.repeat.is_none()
            && p.w.loop_for.is_none()
            && p.w.extends.is_empty();
        if main.kind != Kind::Video || !sound_fits || !unchanged {
            return Err(PlanError::NotSupported(
                "it asks for the result to last as long as the video, and what else it asks would not (a shorter sound, a join, a cut or a change of speed)",
            ));
        }
    }
    // "add song.mp3 as background music and fade it out at the end": "it" is the music, and
    // the fade had been made to the whole video and its sound; which is meant cannot be told.
    if matches!(p.join, Join::Mix(_)) && !p.w.fades.is_empty() {
        return Err(PlanError::NotSupported(
            "with music mixed in, what a fade applies to (the music, or the whole video and its sound) cannot be told; fade the music first, then mix it in",
        ));
    }
    // "keep the first 5 seconds and crossfade into clip2.mp4", "crossfade them and keep the
    // first 5 seconds": the cut is one clip's or the result's, which cannot be told; it had
    // cut the first clip and placed the crossfade by its uncut length.
    // "join them and loop it twice" had looped the first clip alone.
    if matches!(p.join, Join::Concat(_))
        && (p.w.repeat.is_some() || p.w.loop_for.is_some() || p.w.loop_to.is_some())
    {
        return Err(PlanError::NotSupported(
            "repeating joined clips is not supported in one step; join them first, then loop the result",
        ));
    }
    if matches!(p.join, Join::Concat(_)) && !p.w.trims.is_empty() {
        return Err(PlanError::NotSupported(
            "joining clips and cutting in the same request is not supported (which clip, or the result, is cut cannot be told); cut first, then join",
        ));
    }
    // One input repeated until the other ends joins a picture and a sound in a video.
    if let Some(l) = p.w.loop_to {
        let joined = match l {
            LoopTo::Sound => matches!(p.join, Join::ReplaceAudio(_) | Join::Mix(_)),
            LoopTo::Picture => matches!(p.join, Join::ReplaceAudio(_)),
        };
        if !joined || p.mode != Mode::Video || main.kind != Kind::Video {
            return Err(PlanError::NotSupported(
                "repeating one input for as long as another lasts needs a video and a sound file, the sound used as the video's (\"use song.mp3 as the sound and loop the video until it ends\")",
            ));
        }
        if p.w.repeat.is_some() || p.w.loop_for.is_some() || p.trimmed() {
            return Err(PlanError::NotSupported(
                "an input repeated for as long as another lasts cannot also be cut or repeated a number of times in the same request",
            ));
        }
    }
    if (p.w.repeat.is_some() || p.w.loop_for.is_some()) && main.kind == Kind::Still {
        return Err(PlanError::NotSupported(
            "a still picture cannot be repeated; ask for a video of a given length instead",
        ));
    }
    // Subtitles asked for without a subtitle file are refused whatever the output (a still
    // would otherwise come back as if they were not asked for).
    p.subtitle_input()?;
    checks::held(&p)?;
    checks::direction(&p)?;
    if p.w.keep_size && (p.w.resize.is_some() || p.w.crop.is_some() || p.w.pad.is_some()) {
        return Err(PlanError::NotSupported(
            "it asks both to change the picture's size and to keep it",
        ));
    }
    // "convert to mp3 but keep the video", "a gif, keep the sound": the output would lack
    // the stream said to be kept.
    // "... to mp3 but leave the video as it is" too (2026-11-29).
    if (p.w.kept.1 || p.w.untouched.1) && (p.mode == Mode::Audio || p.w.extract_audio) {
        return Err(PlanError::NotSupported(
            "it asks for sound only and also to keep the picture",
        ));
    }
    if p.w.kept.0 && (p.w.remove_audio || matches!(p.mode, Mode::Gif | Mode::Still | Mode::Frames))
    {
        return Err(PlanError::NotSupported(
            "it asks for an output without sound and also to keep the sound",
        ));
    }
    // Beside music mixed in, a lower level is the music's ("background music, quietly"); a
    // louder one may be the voice's as well ("make the voice louder and add music"), so which
    // sound it is for cannot be told.
    let louder = match p.w.volume {
        Some(Level::Factor(f)) => f > 1.0,
        Some(Level::Db(d)) => d > 0.0,
        None => false,
    };
    if matches!(p.join, Join::Mix(_)) && louder {
        return Err(PlanError::NotSupported(
            "with music mixed in, which sound should be louder cannot be told (the music or the original); ask for the music at a level, e.g. \"at 30% volume\"",
        ));
    }
    // A place in the picture ("top left", "at the bottom") only overlays, crops and blurred
    // areas use: beside anything else, the change would apply to the whole picture ("blur
    // the top left corner" had blurred all of it).
    // Padding puts the picture in the middle: "in the middle", said of it, is what it does.
    let centred = p.w.corner.as_deref() == Some("center") && p.w.pad.is_some();
    if p.w.corner.is_some()
        && p.w.crop.is_none()
        && p.w.blur_region.is_none()
        && !matches!(p.join, Join::Overlay(_))
        && !centred
    {
        return Err(PlanError::NotSupported(
            "it names a place in the picture, and what should happen only there cannot be done: a change applies to the whole picture unless it is a watermark, a crop or a blurred area of a given size (\"blur a 300x200 area in the top left corner\")",
        ));
    }
    p.span = p.span()?;
    // The last seconds of a watermark are counted back from an end that must be known.
    if matches!(p.w.overlay_span, Some(Shown::Last(_))) && p.out_duration().is_none() {
        return Err(PlanError::NotSupported(
            "a watermark shown for the last seconds needs the video's length, which is unknown",
        ));
    }
    // "the logo from 12 s to 14 s" of a 10 s video would never show.
    if let (Some(Shown::From(t) | Shown::Between(t, _)), Some(d)) =
        (p.w.overlay_span, p.out_duration())
        && t >= d
    {
        return Err(PlanError::Geometry(format!(
            "the watermark is to show from {}s, and the result is {}s long",
            fmt_num(t),
            fmt_num(d)
        )));
    }
    let no_reencode = p.w.no_reencode;
    // "convert the audio to mp3 but leave the video as it is, without recompressing it"
    // (2026-11-29): beside the picture left as it is, "without re-encoding" is said of it.
    let picture_only = p.w.untouched.1;
    let task = p.build()?;
    // "without re-encoding": a task that encodes would do what was asked not to be done.
    if no_reencode
        && task.outputs.iter().any(|o| {
            o.options.windows(2).any(|w| {
                let encodes = if picture_only {
                    w[0].starts_with("-c:v")
                } else {
                    // A subtitle track's text is converted (SRT to mov_text), not re-encoded.
                    w[0].starts_with("-c:") && w[0] != "-c:s"
                };
                encodes && w[1] != "copy"
            })
        })
    {
        return Err(PlanError::NotSupported(
            "the changes asked for need the streams re-encoded, and re-encoding was ruled out",
        ));
    }
    Ok(task)
}

struct Planner<'m> {
    w: Wants,
    media: &'m [Media<'m>],
    main: &'m Media<'m>,
    join: Join<'m>,
    mode: Mode,
    fmt: &'static Format,
    span: Span,
    /// Task inputs: (media index, options).
    inputs: Vec<(usize, Vec<String>)>,
    opts: Vec<String>,
    maps: Vec<String>,
    complex: Option<String>,
    /// Words for the output name's suffix, in the order the changes were made.
    tags: Vec<String>,
}

impl<'m> Planner<'m> {
    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    fn tag(&mut self, t: impl Into<String>) {
        let t = t.into();
        if !self.tags.contains(&t) {
            self.tags.push(t);
        }
    }

    fn name(&self) -> &str {
        self.main.name()
    }

    fn duration(&self) -> Option<f64> {
        self.main.duration()
    }

    fn unknown_length(&self, what: &str) -> PlanError {
        PlanError::UnknownLength {
            what: what.into(),
            file: self.name().into(),
        }
    }

    fn needs_duration(&self, what: &str) -> Planned<f64> {
        self.duration().ok_or_else(|| self.unknown_length(what))
    }

    /// Length of the output in seconds, when it can be known.
    fn out_duration(&self) -> Option<f64> {
        let base = if self.main.kind == Kind::Still {
            self.span.end.or(match self.join {
                Join::ReplaceAudio(a) => a.duration(),
                _ => Some(STILL_SECONDS),
            })?
        } else if let Join::Concat(list) = &self.join {
            // Joined clips last as long as all of them, less each crossfade's overlap ("join
            // them and fade out over the last 1.5 s" had faded at the first clip's end). A cut
            // beside a join is refused (`plan`), so no span applies.
            let lengths: Option<Vec<f64>> = list.iter().map(|m| m.duration()).collect();
            let overlap = self.w.crossfade.unwrap_or(0.0) * (list.len().max(1) - 1) as f64;
            lengths?.iter().sum::<f64>() - overlap
        } else {
            self.span.end.or(self.duration())? - self.span.start
        };
        let cut = self.span.cut.map_or(0.0, |(a, b)| (b - a).max(0.0));
        let once = (base - cut).max(0.0) / self.w.speed.unwrap_or(1.0);
        let played = match (self.w.loop_for, self.w.repeat) {
            (Some(secs), _) => secs,
            (None, Some(n)) => once * n as f64,
            (None, None) => once,
        };
        let length = played + self.w.extends.iter().map(|(_, s, _)| s).sum::<f64>();
        // A video ends with the shorter of itself and what `shortest=1` binds it to: a video
        // stacked beside it. A sound put in its place never shortens it (`joins.rs`).
        let bound = match self.join {
            Join::Stack(other, _) if other.kind != Kind::Still => other.duration(),
            _ => None,
        };
        Some(bound.map_or(length, |b| length.min(b)))
    }

    fn build(mut self) -> Planned<Task> {
        let file = match self.mode {
            Mode::Video => self.build_video()?,
            Mode::Audio => self.build_audio()?,
            Mode::Frames => self.build_frames()?,
            Mode::Gif => self.build_gif()?,
            Mode::Still => self.build_still()?,
        };
        let inputs = self
            .inputs
            .iter()
            .map(|(i, options)| TaskInput {
                file_path: self.media[*i].name().to_string(),
                options: options.clone(),
            })
            .collect();
        Ok(Task {
            inputs,
            outputs: vec![TaskOutput {
                file,
                options: self.opts,
                maps: self.maps,
            }],
            filter_complex: self.complex,
            output_dir_id: None,
        })
    }

    /// `-ss`/`-t` for the main input (a looped picture gets its length on the output).
    fn trim_options(&self) -> Vec<String> {
        let mut o = Vec::new();
        if self.span.start > 0.0 {
            o.extend(["-ss".to_string(), fmt_num(self.span.start)]);
        }
        if let Some(e) = self.span.end {
            o.extend(["-t".to_string(), fmt_num(e - self.span.start)]);
        }
        o
    }

    fn add_input(&mut self, m: &Media, options: Vec<String>) -> usize {
        self.inputs.push((m.index, options));
        self.inputs.len() - 1
    }

    fn faststart(&mut self) {
        if matches!(self.fmt.key, "mp4" | "mov" | "m4a") {
            self.opts.extend(Self::s(&["-movflags", "+faststart"]));
        }
    }
}
