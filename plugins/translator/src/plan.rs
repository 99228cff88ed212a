//! What is wanted + what the inputs are → a task: which inputs, their options, the filter
//! graph, codecs, stream maps and the output name.

use crate::exports::mediaforge::plugin::translate::InputFacts;
use crate::filters::{self, even};
use crate::formats::{self, Format, Kind as FormatKind};
use crate::intents::{
    Crop, FadeKind, FormatHow, Frames, Level, Pad, Resize, Strength, Thumb, Trim, Understanding,
};
use crate::media::{self, Kind, Media};
use crate::mediaforge::plugin::types::{Task, TaskInput, TaskOutput};
use crate::numbers::fmt_num;
use crate::wants::Wants;

/// What the output is.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Mode {
    Video,
    Audio,
    /// One or more pictures taken from a video.
    Frames,
    Gif,
    /// A picture made from a picture.
    Still,
}

/// How a second input joins the main one.
enum Join<'m> {
    None,
    ReplaceAudio(&'m Media<'m>),
    AddTrack(&'m Media<'m>),
    Mix(&'m Media<'m>),
    Overlay(&'m Media<'m>),
    Concat(Vec<&'m Media<'m>>),
    Stack(&'m Media<'m>, bool),
}

/// The part of the main input used, in its own seconds.
#[derive(Debug, Default)]
struct Span {
    start: f64,
    end: Option<f64>,
    /// A stretch cut out of the middle.
    cut: Option<(f64, f64)>,
}

/// Longest side of a GIF unless asked otherwise, and its frame rate.
const GIF_WIDTH: u32 = 480;
const GIF_FPS: f64 = 10.0;
/// Length of a video made from a still picture when none is given.
const STILL_SECONDS: f64 = 5.0;
/// Share of the main picture's width a watermark gets, unless "small"/"large" says otherwise.
const OVERLAY_SHARE: f64 = 0.2;

pub fn plan(u: &Understanding, facts: &[InputFacts]) -> Result<Task, String> {
    let media: Vec<Media> = facts
        .iter()
        .enumerate()
        .map(|(i, f)| Media::new(i, f))
        .collect();
    if media.is_empty() {
        return Err("there is no input file to work on".into());
    }
    let w = Wants::from(u);
    if let Some(why) = &w.unsupported {
        return Err(format!("this cannot be done here: {why}"));
    }
    let main = pick_main(&media);
    let join = join(&media, main, &w)?;
    let target = target_format(&w, &media);
    let mode = mode(&w, main, target, &join)?;
    let fmt = output_format(&w, mode, target, main)?;
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
        return Err(format!("{} has no audio stream", main.name()));
    }
    if p.w.picture_only() && main.video.is_none() && main.kind != Kind::Unknown {
        return Err(format!("{} has no video stream", main.name()));
    }
    p.span = p.span()?;
    p.build()
}

/// The input the instruction is about: the first video, else the first picture, else the
/// first file.
fn pick_main<'m>(media: &'m [Media<'m>]) -> &'m Media<'m> {
    media
        .iter()
        .find(|m| m.kind == Kind::Video)
        .or_else(|| media.iter().find(|m| m.kind == Kind::Still))
        .unwrap_or(&media[0])
}

fn join<'m>(media: &'m [Media<'m>], main: &'m Media<'m>, w: &Wants) -> Result<Join<'m>, String> {
    let others: Vec<&Media> = media.iter().filter(|m| m.index != main.index).collect();
    let audio_src = others
        .iter()
        .find(|m| m.kind == Kind::Audio)
        .or_else(|| others.iter().find(|m| m.has_audio()))
        .copied();
    let picture_src = others
        .iter()
        .find(|m| m.kind == Kind::Still)
        .or_else(|| others.iter().find(|m| m.has_picture() && m.video.is_some()))
        .copied();
    let videos: Vec<&Media> = media.iter().filter(|m| m.kind == Kind::Video).collect();
    if w.concat || (w.combine && videos.len() >= 2 && !w.overlay) {
        if videos.len() < 2 {
            return Err("joining clips needs at least two video inputs".into());
        }
        return Ok(Join::Concat(videos));
    }
    if let Some(horizontal) = w.stack {
        let other = picture_src.ok_or("stacking needs a second video or picture input")?;
        return Ok(Join::Stack(other, horizontal));
    }
    if w.overlay || (w.combine && picture_src.is_some_and(|m| m.kind == Kind::Still)) {
        let logo = picture_src.ok_or(
            "a watermark or overlay needs a second input: the picture to put on the video",
        )?;
        return Ok(Join::Overlay(logo));
    }
    let new_audio = w.replace_audio || w.add_track || w.mix_audio || w.add_audio || w.combine;
    if new_audio {
        let src =
            audio_src.ok_or("adding or replacing audio needs a second input that has audio")?;
        let main_sound = main.has_audio() && main.kind == Kind::Video;
        return Ok(if w.add_track && main_sound {
            Join::AddTrack(src)
        } else if (w.mix_audio || ((w.add_audio || w.combine) && !w.replace_audio)) && main_sound {
            Join::Mix(src)
        } else {
            Join::ReplaceAudio(src)
        });
    }
    // A picture or a silent video given with a sound file: they belong together.
    if let Some(src) = audio_src.filter(|a| a.kind == Kind::Audio)
        && (main.kind == Kind::Still || (main.kind == Kind::Video && !main.has_audio()))
        && !w.extract_audio
    {
        return Ok(Join::ReplaceAudio(src));
    }
    Ok(Join::None)
}

/// The output format asked for: the last one named with "to"/"as"/…, else the output file
/// name's, else the last one named that is not an input's own format.
fn target_format(w: &Wants, media: &[Media]) -> Option<&'static Format> {
    if let Some((k, _)) = w
        .formats
        .iter()
        .rev()
        .find(|(_, how)| *how == FormatHow::Target)
    {
        return formats::format(k);
    }
    if let Some(f) = w
        .output_name
        .as_deref()
        .and_then(media::ext)
        .and_then(formats::by_ext)
    {
        return Some(f);
    }
    let input_keys: Vec<&str> = media
        .iter()
        .filter_map(|m| m.format.map(|f| f.key))
        .collect();
    w.formats
        .iter()
        .rev()
        .find(|(k, how)| *how == FormatHow::Mention && !input_keys.contains(&k.as_str()))
        .and_then(|(k, _)| formats::format(k))
}

fn mode(w: &Wants, main: &Media, target: Option<&Format>, join: &Join) -> Result<Mode, String> {
    let target_kind = target.map(|f| f.kind);
    let mode = if matches!(join, Join::Concat(_) | Join::Stack(..) | Join::Overlay(_)) {
        if target_kind == Some(FormatKind::Gif) {
            Mode::Gif
        } else {
            Mode::Video
        }
    } else if w.thumb.is_some() || w.frames.is_some() {
        if main.kind == Kind::Still {
            Mode::Still
        } else {
            Mode::Frames
        }
    } else {
        match target_kind {
            Some(FormatKind::Image) if main.kind == Kind::Still => Mode::Still,
            Some(FormatKind::Image) => Mode::Frames,
            Some(FormatKind::Gif) => Mode::Gif,
            Some(FormatKind::Audio) => Mode::Audio,
            _ if w.extract_audio => Mode::Audio,
            _ => match main.kind {
                Kind::Still => {
                    let as_video = target_kind == Some(FormatKind::Video)
                        || w.image_to_video
                        || !w.trims.is_empty()
                        || w.loose_time.is_some()
                        || !w.fades.is_empty()
                        || matches!(join, Join::ReplaceAudio(_));
                    if as_video { Mode::Video } else { Mode::Still }
                }
                Kind::Audio => Mode::Audio,
                _ => Mode::Video,
            },
        }
    };
    let name = main.name();
    match mode {
        Mode::Audio if !main.has_audio() => Err(format!("{name} has no audio stream")),
        Mode::Video | Mode::Frames | Mode::Gif | Mode::Still
            if main.video.is_none() && main.kind != Kind::Unknown =>
        {
            Err(format!("{name} has no video stream"))
        }
        _ => Ok(mode),
    }
}

/// The video codec asked for: the last one named with "to"/"with"/…, else the last one named
/// that is not the input's own.
fn requested_vcodec(w: &Wants, main: &Media) -> Option<&'static formats::VideoEncoder> {
    let key = w
        .vcodecs
        .iter()
        .rev()
        .find(|(_, targeted)| *targeted)
        .or_else(|| {
            w.vcodecs.iter().rev().find(|(k, _)| {
                formats::video_encoder(k).is_some_and(|e| Some(e.codec) != main.vcodec())
            })
        })
        .map(|(k, _)| k.as_str())?;
    formats::video_encoder(key)
}

fn output_format(
    w: &Wants,
    mode: Mode,
    target: Option<&'static Format>,
    main: &Media,
) -> Result<&'static Format, String> {
    let fallback = |key: &str| formats::format(key).ok_or_else(|| format!("no format {key}"));
    match mode {
        Mode::Video => {
            let vcodec = requested_vcodec(w, main);
            if let Some(t) = target.filter(|t| t.kind == FormatKind::Video) {
                if let Some(enc) = vcodec.filter(|e| !t.vcodecs.contains(&e.codec)) {
                    return Err(format!(
                        "{} cannot hold {} video; ask for {} instead",
                        t.ext, enc.codec, enc.container
                    ));
                }
                return Ok(t);
            }
            let input = main.format.filter(|f| f.kind == FormatKind::Video);
            match (vcodec, input) {
                (Some(enc), Some(f)) if f.vcodecs.contains(&enc.codec) => Ok(f),
                (Some(enc), _) => fallback(enc.container),
                (None, Some(f)) => Ok(f),
                (None, None) => fallback("mp4"),
            }
        }
        Mode::Audio => {
            let audio_main = main.kind == Kind::Audio;
            if let Some(t) = target.filter(|t| {
                t.kind == FormatKind::Audio || (audio_main && t.kind == FormatKind::Video)
            }) {
                return Ok(t);
            }
            if let Some(enc) = w.acodec.as_deref().and_then(formats::audio_encoder) {
                return fallback(enc.format);
            }
            if let Some(f) = main.format.filter(|f| f.kind == FormatKind::Audio) {
                return Ok(f);
            }
            // Extracting: a format that holds the sound as it is, so it can be copied.
            let by_codec = main
                .acodec()
                .and_then(formats::audio_encoder_for_codec)
                .map(|e| e.format);
            fallback(by_codec.unwrap_or("mp3"))
        }
        Mode::Frames => Ok(target
            .filter(|t| t.kind == FormatKind::Image)
            .map_or_else(|| fallback("jpg"), Ok)?),
        Mode::Still => {
            let own = main.format.filter(|f| f.kind == FormatKind::Image);
            Ok(target
                .filter(|t| t.kind == FormatKind::Image)
                .or(own)
                .map_or_else(|| fallback("png"), Ok)?)
        }
        Mode::Gif => fallback("gif"),
    }
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

    fn needs_duration(&self, what: &str) -> Result<f64, String> {
        self.duration().ok_or_else(|| {
            format!(
                "{what} needs the length of {}, which is unknown",
                self.name()
            )
        })
    }

    /// Reads the trims into one span of the main input.
    fn span(&mut self) -> Result<Span, String> {
        let w = &self.w;
        let d = self.duration();
        let mut s = Span::default();
        for t in w.trims.clone() {
            match t {
                Trim::KeepHead(n) => s.end = Some(s.start + n),
                Trim::Duration(n) => s.end = Some(s.start + n),
                // "cut the first 10 seconds" of a 10-second clip can only mean "keep them".
                Trim::CutHead(n) if d.is_some_and(|d| n >= d) => s.end = Some(n),
                Trim::CutHead(n) => s.start += n,
                Trim::KeepTail(n) => {
                    s.start = (self.needs_duration("\"the last ...\"")? - n).max(0.0)
                }
                Trim::CutTail(n) => s.end = Some(self.needs_duration("cutting the end")? - n),
                Trim::CutEnds(a, b) => {
                    s.start += a;
                    s.end = Some(self.needs_duration("cutting both ends")? - b);
                }
                Trim::Range(a, b) => (s.start, s.end) = (a, Some(b)),
                Trim::CutRange(a, b) => s.cut = Some((a, b)),
                Trim::Start(a) => s.start = a,
                Trim::End(b) => s.end = Some(b),
            }
        }
        // A time with no role of its own: "a 10 second preview starting at 0:05" is a length;
        // "at 5s" alone a start.
        let framing = matches!(self.mode, Mode::Frames | Mode::Still);
        if !framing && s.end.is_none() {
            if let Some(t) = w.loose_time {
                s.end = Some(s.start + t);
            } else if let Some(a) = w.at.filter(|_| w.trims.is_empty()) {
                s.start = a;
            }
        }
        if let Some(d) = d
            && self.main.kind != Kind::Still
        {
            if s.start >= d {
                return Err(format!(
                    "{} is only {} s long, so it cannot start at {} s",
                    self.name(),
                    fmt_num(d),
                    fmt_num(s.start)
                ));
            }
            if s.end.is_some_and(|e| e >= d - 0.001) {
                s.end = None;
            }
        }
        if let Some(e) = s.end
            && e <= s.start
        {
            return Err(format!(
                "the end ({} s) comes before the start ({} s)",
                fmt_num(e),
                fmt_num(s.start)
            ));
        }
        if !w.trims.is_empty() {
            self.tags.push("trimmed".into());
        }
        Ok(s)
    }

    /// Length of the output in seconds, when it can be known.
    fn out_duration(&self) -> Option<f64> {
        let base = if self.main.kind == Kind::Still {
            self.span.end.or(match self.join {
                Join::ReplaceAudio(a) => a.duration(),
                _ => Some(STILL_SECONDS),
            })?
        } else {
            self.span.end.or(self.duration())? - self.span.start
        };
        let cut = self.span.cut.map_or(0.0, |(a, b)| (b - a).max(0.0));
        Some((base - cut).max(0.0) / self.w.speed.unwrap_or(1.0))
    }

    fn build(mut self) -> Result<Task, String> {
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

    /// Crop, rotate, flip, resize, pad and picture effects, in that order. `even` keeps
    /// sizes even for yuv420p encoders.
    fn picture_chain(&mut self, even_sizes: bool) -> Result<Vec<String>, String> {
        let mut chain = Vec::new();
        let mut dims = self.main.dims();
        let ev = |x: f64| {
            if even_sizes {
                even(x)
            } else {
                (x.round() as u32).max(1)
            }
        };
        let corner = self.w.corner.clone().unwrap_or_else(|| "center".into());
        if let Some(crop) = self.w.crop.clone() {
            self.tag(if crop == Crop::Square {
                "square"
            } else {
                "cropped"
            });
            chain.push(match dims {
                Some((iw, ih)) => {
                    let (fw, fh) = (iw as f64, ih as f64);
                    let (w, h, origin) = match &crop {
                        Crop::Square => (ev(fw.min(fh)), ev(fw.min(fh)), None),
                        Crop::Aspect(r) if fw / fh > *r => (ev(fh * r), ev(fh), None),
                        Crop::Aspect(r) => (ev(fw), ev(fw / r), None),
                        Crop::Dim(w, h) => (ev((*w).min(iw) as f64), ev((*h).min(ih) as f64), None),
                        Crop::Edges(p) => {
                            if 2 * p >= iw.min(ih) {
                                return Err(format!(
                                    "cropping {p} px from each edge leaves nothing of {iw}x{ih}"
                                ));
                            }
                            (ev(fw - 2.0 * *p as f64), ev(fh - 2.0 * *p as f64), None)
                        }
                        Crop::Keep(f) => (ev(fw * f), ev(fh * f), None),
                        Crop::Side(side, p) => {
                            let p = *p;
                            let limit = if side == "top" || side == "bottom" {
                                ih
                            } else {
                                iw
                            };
                            if p >= limit {
                                return Err(format!("cannot crop {p} px from a {iw}x{ih} picture"));
                            }
                            match side.as_str() {
                                "top" => {
                                    (ev(fw), ev(fh - p as f64), Some((0, ih - ev(fh - p as f64))))
                                }
                                "bottom" => (ev(fw), ev(fh - p as f64), Some((0, 0))),
                                "left" => {
                                    (ev(fw - p as f64), ev(fh), Some((iw - ev(fw - p as f64), 0)))
                                }
                                _ => (ev(fw - p as f64), ev(fh), Some((0, 0))),
                            }
                        }
                        Crop::Half(side) => match side.as_str() {
                            "top" => (ev(fw), ev(fh / 2.0), Some((0, 0))),
                            "bottom" => (ev(fw), ev(fh / 2.0), Some((0, ih - ev(fh / 2.0)))),
                            "left" => (ev(fw / 2.0), ev(fh), Some((0, 0))),
                            _ => (ev(fw / 2.0), ev(fh), Some((iw - ev(fw / 2.0), 0))),
                        },
                    };
                    let (x, y) =
                        origin.unwrap_or_else(|| filters::crop_origin(&corner, iw, ih, w, h));
                    dims = Some((w, h));
                    format!("crop={w}:{h}:{x}:{y}")
                }
                None => {
                    dims = None;
                    match &crop {
                        Crop::Square => "crop=min(iw\\,ih):min(iw\\,ih)".into(),
                        Crop::Aspect(r) => {
                            format!("crop=min(iw\\,ih*{0}):min(ih\\,iw/{0})", fmt_num(*r))
                        }
                        Crop::Dim(w, h) => format!("crop={w}:{h}"),
                        Crop::Edges(p) => format!("crop=iw-{0}:ih-{0}", 2 * p),
                        Crop::Keep(f) => format!("crop=iw*{0}:ih*{0}", fmt_num(*f)),
                        Crop::Side(side, p) => match side.as_str() {
                            "top" => format!("crop=iw:ih-{p}:0:{p}"),
                            "bottom" => format!("crop=iw:ih-{p}:0:0"),
                            "left" => format!("crop=iw-{p}:ih:{p}:0"),
                            _ => format!("crop=iw-{p}:ih:0:0"),
                        },
                        Crop::Half(side) => match side.as_str() {
                            "top" => "crop=iw:ih/2:0:0".into(),
                            "bottom" => "crop=iw:ih/2:0:ih/2".into(),
                            "left" => "crop=iw/2:ih:0:0".into(),
                            _ => "crop=iw/2:ih:iw/2:0".into(),
                        },
                    }
                }
            });
        }
        if self.w.rotate != 0 {
            self.tag("rotated");
            chain.extend(filters::rotation(self.w.rotate));
            if self.w.rotate % 180 == 90 {
                dims = dims.map(|(w, h)| (h, w));
            }
        }
        if self.w.hflip {
            self.tag("flipped");
            chain.push("hflip".into());
        }
        if self.w.vflip {
            self.tag("flipped");
            chain.push("vflip".into());
        }
        if let Some(r) = self.w.resize.clone() {
            let (filter, tag, new) = resize(&r, dims, self.w.keep_aspect, even_sizes);
            self.tag(tag);
            chain.push(filter);
            dims = new;
        }
        if let Some(pad) = self.w.pad.clone() {
            self.tag(if matches!(pad, Pad::Border(_)) {
                "border"
            } else {
                "padded"
            });
            let color = self.w.color.clone().unwrap_or_else(|| "black".into());
            let centred = "(ow-iw)/2:(oh-ih)/2";
            match (&pad, dims) {
                (Pad::Aspect(r), Some((iw, ih))) => {
                    let (fw, fh) = (iw as f64, ih as f64);
                    let (w, h) = if fw / fh < *r {
                        (ev(fh * r).max(iw), ih)
                    } else {
                        (iw, ev(fw / r).max(ih))
                    };
                    chain.push(format!("pad={w}:{h}:{centred}:color={color}"));
                    dims = Some((w, h));
                }
                (Pad::Aspect(r), None) => {
                    chain.push(format!(
                        "pad=max(iw\\,ih*{0}):max(ih\\,iw/{0}):{centred}:color={color}",
                        fmt_num(*r)
                    ));
                }
                (Pad::Dim(w, h), _) => {
                    let (w, h) = (ev(*w as f64), ev(*h as f64));
                    chain.push(format!(
                        "scale={w}:{h}:force_original_aspect_ratio=decrease"
                    ));
                    chain.push(format!("pad={w}:{h}:{centred}:color={color}"));
                    dims = Some((w, h));
                }
                (Pad::Square, Some((iw, ih))) => {
                    let s = ev(iw.max(ih) as f64);
                    chain.push(format!("pad={s}:{s}:{centred}:color={color}"));
                    dims = Some((s, s));
                }
                (Pad::Square, None) => chain.push(format!(
                    "pad=max(iw\\,ih):max(iw\\,ih):{centred}:color={color}"
                )),
                (Pad::Border(p), _) => {
                    chain.push(format!("pad=iw+{0}:ih+{0}:{p}:{p}:color={color}", 2 * p));
                    dims = dims.map(|(w, h)| (w + 2 * p, h + 2 * p));
                }
            }
        }
        if self.w.grayscale {
            self.tag("bw");
            chain.push("hue=s=0".into());
        }
        if self.w.denoise {
            self.tag("denoised");
            chain.push("hqdn3d".into());
        }
        for f in self.w.vfilters.clone() {
            let name = f.split(['=', ':']).next().unwrap_or("fx").to_string();
            self.tag(match name.as_str() {
                "colorchannelmixer" => "sepia",
                "eq" => "adjusted",
                "gblur" => "blurred",
                "unsharp" => "sharpened",
                "negate" => "inverted",
                "yadif" => "deinterlaced",
                "deshake" => "stabilized",
                other => other,
            });
            chain.push(f);
        }
        // Sizes the arithmetic could not follow: round to even at the end.
        if even_sizes && dims.is_none() && !chain.is_empty() {
            chain.push("scale=trunc(iw/2)*2:trunc(ih/2)*2".into());
        }
        if even_sizes && self.main.kind == Kind::Still && chain.is_empty() {
            let odd = self
                .main
                .dims()
                .is_none_or(|(w, h)| w % 2 == 1 || h % 2 == 1);
            if odd {
                chain.push("scale=trunc(iw/2)*2:trunc(ih/2)*2".into());
            }
        }
        Ok(chain)
    }

    /// Cutting out a stretch: first in the chain, before timestamps change.
    fn cut_filters(&self) -> (Option<String>, Option<String>) {
        match self.span.cut {
            Some((a, b)) => {
                let (a, b) = (
                    (a - self.span.start).max(0.0),
                    (b - self.span.start).max(0.0),
                );
                let between = format!("not(between(t\\,{}\\,{}))", fmt_num(a), fmt_num(b));
                (
                    Some(format!("select={between},setpts=N/FRAME_RATE/TB")),
                    Some(format!("aselect={between},asetpts=N/SR/TB")),
                )
            }
            None => (None, None),
        }
    }

    /// Frame rate, speed, reverse and fades: the filters that work on time.
    fn video_timing(&mut self) -> Result<Vec<String>, String> {
        let mut chain = Vec::new();
        let rate = match (self.w.fps, self.w.fps_factor) {
            (Some(f), _) => Some(f),
            (None, Some(k)) => Some(
                self.main
                    .fps()
                    .ok_or_else(|| format!("the frame rate of {} is unknown", self.name()))?
                    * k,
            ),
            _ => None,
        };
        if let Some(r) = rate {
            self.tag(format!("{}fps", fmt_num(r)));
            chain.push(format!("fps={}", fmt_num(r)));
        }
        if let Some(s) = self.w.speed {
            self.tag(format!("{}x", fmt_num(s)));
            chain.push(filters::setpts(s));
        }
        if self.w.reverse {
            self.tag("reversed");
            chain.push("reverse".into());
        }
        chain.extend(self.fades(false)?);
        Ok(chain)
    }

    fn fades(&mut self, audio: bool) -> Result<Vec<String>, String> {
        let mut out = Vec::new();
        let name = if audio { "afade" } else { "fade" };
        for (kind, secs, audio_only) in self.w.fades.clone() {
            if audio_only && !audio {
                continue;
            }
            let total = self.out_duration();
            let d = secs
                .unwrap_or(1.0)
                .min(total.map_or(f64::MAX, |t| t / 2.0))
                .max(0.1);
            if matches!(kind, FadeKind::In | FadeKind::Both) {
                out.push(format!("{name}=t=in:st=0:d={}", fmt_num(d)));
            }
            if matches!(kind, FadeKind::Out | FadeKind::Both) {
                let total = total.ok_or_else(|| {
                    format!(
                        "fading out needs the length of {}, which is unknown",
                        self.name()
                    )
                })?;
                out.push(format!(
                    "{name}=t=out:st={}:d={}",
                    fmt_num((total - d).max(0.0)),
                    fmt_num(d)
                ));
            }
            self.tag("faded");
        }
        Ok(out)
    }

    fn audio_chain(&mut self) -> Result<Vec<String>, String> {
        let mut chain: Vec<String> = self.cut_filters().1.into_iter().collect();
        chain.extend(self.w.afilters.clone());
        if !self.w.afilters.is_empty() {
            self.tag("filtered");
        }
        if self.w.denoise && self.mode == Mode::Audio {
            self.tag("denoised");
            chain.push("afftdn=nf=-25".into());
        }
        match self.w.volume {
            Some(Level::Factor(f)) => {
                self.tag(if f > 1.0 { "louder" } else { "quieter" });
                chain.push(format!("volume={}", fmt_num(f)));
            }
            Some(Level::Db(db)) => {
                self.tag(if db > 0.0 { "louder" } else { "quieter" });
                chain.push(format!("volume={}dB", fmt_num(db)));
            }
            None => {}
        }
        if let Some(target) = self.w.normalize {
            self.tag("normalized");
            chain.push(format!(
                "loudnorm=I={}:TP=-1.5:LRA=11",
                fmt_num(target.unwrap_or(-16.0).clamp(-70.0, -5.0))
            ));
        }
        if let Some(s) = self.w.speed {
            self.tag(format!("{}x", fmt_num(s)));
            chain.extend(filters::atempo_chain(s));
        }
        if self.w.reverse {
            self.tag("reversed");
            chain.push("areverse".into());
        }
        chain.extend(self.fades(true)?);
        Ok(chain)
    }

    /// `-ac`, `-ar`: loudnorm works at 192 kHz, so it always gets a sample rate back.
    fn audio_format_options(
        &mut self,
        source_rate: Option<u32>,
        enc: Option<&formats::AudioEncoder>,
    ) -> Result<Vec<String>, String> {
        let mut o = Vec::new();
        if let Some(c) = self.w.channels {
            self.tag(match c {
                1 => "mono".to_string(),
                2 => "stereo".to_string(),
                n => format!("{n}ch"),
            });
            o.extend(["-ac".to_string(), c.to_string()]);
        }
        let rate = self.w.sample_rate.or(if self.w.normalize.is_some() {
            Some(source_rate.unwrap_or(48000))
        } else {
            None
        });
        if let Some(r) = rate {
            if let Some(enc) = enc.filter(|e| !e.rates.is_empty() && !e.rates.contains(&r)) {
                if self.w.sample_rate.is_some() {
                    return Err(format!(
                        "{} audio cannot have a sample rate of {r} Hz",
                        enc.codec
                    ));
                }
            } else {
                if self.w.sample_rate.is_some() {
                    self.tag(format!("{}k", fmt_num(r as f64 / 1000.0)));
                }
                o.extend(["-ar".to_string(), r.to_string()]);
            }
        }
        Ok(o)
    }

    /// 0: default quality, 1: smaller, 2: better.
    fn quality_level(&self) -> usize {
        if self.w.compress.is_some()
            || self.w.target_size.is_some()
            || self.w.target_factor.is_some()
        {
            1
        } else if self.w.quality_high || self.w.lossless {
            2
        } else {
            0
        }
    }

    /// Target size in bytes, from "under 5 MB" or "half the file size".
    fn target_bytes(&self) -> Option<f64> {
        self.w.target_size.or_else(|| {
            Some(self.w.target_factor? * self.main.facts.size as f64).filter(|b| *b > 0.0)
        })
    }

    /// Video bitrate (bit/s) that fits the target size, leaving room for sound.
    fn target_video_bitrate(&self, with_audio: bool) -> Result<Option<u32>, String> {
        let Some(bytes) = self.target_bytes() else {
            return Ok(self.w.vbitrate);
        };
        let secs = self.out_duration().ok_or_else(|| {
            format!(
                "a target size needs the length of {}, which is unknown",
                self.name()
            )
        })?;
        let audio = if with_audio { 64_000.0 } else { 0.0 };
        let video = bytes * 8.0 * 0.92 / secs - audio;
        if video < 30_000.0 {
            return Err(format!(
                "{:.1} MB is too small for {} s of video",
                bytes / 1e6,
                fmt_num(secs)
            ));
        }
        Ok(Some(video as u32))
    }

    fn video_codec(&mut self, must_encode: bool, with_audio: bool) -> Result<Vec<String>, String> {
        let requested = requested_vcodec(&self.w, self.main);
        let quality_asked = self.w.compress.is_some()
            || self.w.crf.is_some()
            || self.w.vbitrate.is_some()
            || self.target_bytes().is_some()
            || self.w.quality_high
            || self.w.lossless
            || self.w.reencode;
        let copyable = self
            .main
            .vcodec()
            .is_some_and(|c| self.fmt.vcodecs.contains(&c));
        if requested.is_none() && !must_encode && !quality_asked && copyable {
            return Ok(Self::s(&["-c:v", "copy"]));
        }
        // Compressing an HEVC or VP9 input keeps its codec family, so the result is smaller.
        let same_family = self
            .main
            .vcodec()
            .and_then(|c| {
                formats::VIDEO_ENCODERS
                    .iter()
                    .find(|e| e.codec == c && (c == "hevc" || c == "vp9"))
            })
            .filter(|e| self.w.compress.is_some() && self.fmt.vcodecs.contains(&e.codec));
        let default = self.fmt.venc.and_then(formats::video_encoder);
        let enc = requested
            .or(same_family)
            .or(default)
            .ok_or("no video encoder for this format")?;
        if let Some(r) = requested {
            self.tag(r.key);
        }
        let mut o = Self::s(&["-c:v", enc.lib]);
        let level = self.quality_level();
        if let Some(b) = self.target_video_bitrate(with_audio)? {
            o.extend(["-b:v".to_string(), format!("{}k", b / 1000)]);
        } else if let Some(crfs) = enc.crf {
            let crf = if self.w.lossless {
                0
            } else {
                self.w.crf.unwrap_or(match self.w.compress {
                    Some(Strength::Strong) => crfs[1] + 5,
                    Some(Strength::Light) => crfs[1] - 3,
                    _ => crfs[level],
                })
            };
            o.extend(["-crf".to_string(), crf.to_string()]);
            o.extend(Self::s(enc.crf_mode));
        }
        if quality_asked && self.quality_level() == 1 {
            self.tag("compressed");
        }
        o.extend(Self::s(enc.extra));
        o.extend(["-pix_fmt".to_string(), enc.pix_fmt.to_string()]);
        Ok(o)
    }

    /// Audio codec options for sound from `src`; `None` when it is written as it is.
    fn audio_codec(
        &mut self,
        src_codec: Option<&str>,
        must_encode: bool,
    ) -> Result<(Vec<String>, Option<&'static formats::AudioEncoder>), String> {
        let requested = self.w.acodec.as_deref().and_then(formats::audio_encoder);
        if let Some(enc) = requested
            && !self.fmt.acodecs.contains(&enc.codec)
        {
            return Err(format!("{} cannot hold {} audio", self.fmt.ext, enc.codec));
        }
        let quality_asked = self.quality_level() != 0 || self.w.abitrate.is_some();
        let copyable = src_codec.is_some_and(|c| self.fmt.acodecs.contains(&c));
        if requested.is_none_or(|e| Some(e.codec) == src_codec)
            && !must_encode
            && !quality_asked
            && copyable
        {
            return Ok((Self::s(&["-c:a", "copy"]), None));
        }
        let enc = requested
            .or(self.fmt.aenc.and_then(formats::audio_encoder))
            .ok_or("no audio encoder for this format")?;
        let mut o = Self::s(&["-c:a", enc.lib]);
        let kbps = match (self.w.abitrate, self.target_bytes(), enc.kbps) {
            (Some(b), _, Some(_)) => Some(b / 1000),
            (None, Some(_), Some(_)) => Some(64),
            (None, None, Some(levels)) => Some(levels[self.quality_level()]),
            (_, _, None) => None,
        };
        if let Some(k) = kbps {
            o.extend(["-b:a".to_string(), format!("{k}k")]);
        }
        Ok((o, Some(enc)))
    }

    fn faststart(&mut self) {
        if matches!(self.fmt.key, "mp4" | "mov" | "m4a") {
            self.opts.extend(Self::s(&["-movflags", "+faststart"]));
        }
    }

    fn build_video(&mut self) -> Result<String, String> {
        let still = self.main.kind == Kind::Still;
        let main_opts = if still {
            let rate = self.w.fps.unwrap_or(25.0);
            Self::s(&["-loop", "1", "-framerate", &fmt_num(rate)])
        } else {
            self.trim_options()
        };
        let mi = self.add_input(self.main, main_opts);
        let (vcut, _) = self.cut_filters();
        let mut vchain: Vec<String> = vcut.into_iter().collect();
        vchain.extend(self.picture_chain(true)?);
        let timing = self.video_timing()?;
        // A still picture's frame rate is set on its input.
        vchain.extend(
            timing
                .into_iter()
                .filter(|f| !(still && f.starts_with("fps="))),
        );
        let achain = self.audio_chain()?;

        // Where the sound comes from, if any.
        let sound: Option<&Media> = match &self.join {
            Join::ReplaceAudio(a) => Some(a),
            _ if self.w.remove_audio => None,
            Join::Concat(list) if list.iter().all(|m| m.has_audio()) => Some(self.main),
            Join::Concat(_) => None,
            _ => Some(self.main).filter(|m| m.has_audio()),
        };
        if self.w.remove_audio {
            self.tag("muted");
        }
        let join = std::mem::replace(&mut self.join, Join::None);
        let mut picture_filtered = !vchain.is_empty();
        let mut sound_filtered = !achain.is_empty();
        let mut graph: Vec<String> = Vec::new();
        let join_chain = |chain: &[String]| {
            if chain.is_empty() {
                String::new()
            } else {
                format!(",{}", chain.join(","))
            }
        };
        match &join {
            Join::None => {}
            Join::ReplaceAudio(a) => {
                let ai = self.add_input(a, Vec::new());
                self.maps.extend([format!("{mi}:v:0"), format!("{ai}:a:0")]);
                self.opts.push("-shortest".into());
                self.tag("new_audio");
            }
            Join::AddTrack(a) => {
                let ai = self.add_input(a, Vec::new());
                self.maps
                    .extend([format!("{mi}:v:0"), format!("{mi}:a"), format!("{ai}:a:0")]);
                if let Some(d) = self.out_duration() {
                    self.opts.extend(["-t".to_string(), fmt_num(d)]);
                }
                self.tag("two_tracks");
            }
            Join::Mix(a) => {
                let ai = self.add_input(a, Vec::new());
                graph.push(format!(
                    "[{ai}:a]volume=0.5[added];[{mi}:a][added]amix=inputs=2:duration=first:dropout_transition=0:normalize=0{}[a]",
                    join_chain(&achain)
                ));
                if picture_filtered {
                    graph.push(format!("[{mi}:v]{}[v]", vchain.join(",")));
                    self.maps.push("[v]".into());
                } else {
                    self.maps.push(format!("{mi}:v:0"));
                }
                self.maps.push("[a]".into());
                sound_filtered = true;
                self.tag("mixed");
            }
            Join::Overlay(logo) => {
                let li = self.add_input(logo, Vec::new());
                let width = self.main.dims().map(|d| d.0);
                let share = self.w.overlay_size.unwrap_or(OVERLAY_SHARE);
                let mut logo_chain = Vec::new();
                if let Some(w) = width {
                    logo_chain.push(format!("scale={}:-1", even(w as f64 * share)));
                }
                if let Some(o) = self.w.opacity.filter(|o| *o < 1.0) {
                    logo_chain.push(format!("format=rgba,colorchannelmixer=aa={}", fmt_num(o)));
                }
                if logo_chain.is_empty() {
                    logo_chain.push("null".into());
                }
                let margin = width.map_or(10, |w| (w / 64).max(10));
                let (x, y) =
                    filters::position(self.w.corner.as_deref().unwrap_or("bottom-right"), margin);
                let shortest = if logo.kind == Kind::Video {
                    ":shortest=1"
                } else {
                    ""
                };
                graph.push(format!("[{li}:v]{}[logo]", logo_chain.join(",")));
                graph.push(format!(
                    "[{mi}:v][logo]overlay={x}:{y}{shortest}{}[v]",
                    join_chain(&vchain)
                ));
                self.maps.push("[v]".into());
                picture_filtered = true;
                self.tag("watermarked");
            }
            Join::Stack(other, horizontal) => {
                let oi = self.add_input(other, Vec::new());
                let (a, b) = (self.main.dims(), other.dims());
                let (sa, sb, stack) = if *horizontal {
                    let h = even(a.map_or(720, |d| d.1).min(b.map_or(720, |d| d.1)) as f64);
                    (format!("scale=-2:{h}"), format!("scale=-2:{h}"), "hstack")
                } else {
                    let w = even(a.map_or(1280, |d| d.0).min(b.map_or(1280, |d| d.0)) as f64);
                    (format!("scale={w}:-2"), format!("scale={w}:-2"), "vstack")
                };
                let loop_other = if other.kind == Kind::Still {
                    ",loop=-1:1"
                } else {
                    ""
                };
                let shortest = if other.kind == Kind::Still {
                    ""
                } else {
                    ":shortest=1"
                };
                graph.push(format!("[{mi}:v]{sa}[first]"));
                graph.push(format!("[{oi}:v]{sb}{loop_other}[second]"));
                graph.push(format!(
                    "[first][second]{stack}=inputs=2{shortest}{}[v]",
                    join_chain(&vchain)
                ));
                self.maps.push("[v]".into());
                picture_filtered = true;
                self.tag("stacked");
            }
            Join::Concat(list) => {
                let (w, h) = self
                    .main
                    .dims()
                    .map_or((1280, 720), |(w, h)| (even(w as f64), even(h as f64)));
                let rate = fmt_num(self.main.fps().unwrap_or(30.0));
                let with_sound = sound.is_some();
                let mut labels = String::new();
                for (k, m) in list.iter().enumerate() {
                    let idx = if m.index == self.main.index {
                        mi
                    } else {
                        self.add_input(m, Vec::new())
                    };
                    graph.push(format!(
                        "[{idx}:v]scale={w}:{h}:force_original_aspect_ratio=decrease,pad={w}:{h}:(ow-iw)/2:(oh-ih)/2,setsar=1,fps={rate},format=yuv420p[v{k}]"
                    ));
                    labels.push_str(&format!("[v{k}]"));
                    if with_sound {
                        graph.push(format!(
                            "[{idx}:a]aformat=sample_rates=48000:channel_layouts=stereo[a{k}]"
                        ));
                        labels.push_str(&format!("[a{k}]"));
                    }
                }
                let a = if with_sound { 1 } else { 0 };
                let v_out = if vchain.is_empty() {
                    "[v]".to_string()
                } else {
                    "[joined]".into()
                };
                let a_out = if achain.is_empty() {
                    "[a]".to_string()
                } else {
                    "[joineda]".into()
                };
                let outs = if with_sound {
                    format!("{v_out}{a_out}")
                } else {
                    v_out.clone()
                };
                graph.push(format!("{labels}concat=n={}:v=1:a={a}{outs}", list.len()));
                if !vchain.is_empty() {
                    graph.push(format!("[joined]{}[v]", vchain.join(",")));
                }
                self.maps.push("[v]".into());
                if with_sound {
                    if !achain.is_empty() {
                        graph.push(format!("[joineda]{}[a]", achain.join(",")));
                    }
                    self.maps.push("[a]".into());
                    sound_filtered = true;
                }
                picture_filtered = true;
                self.tag("joined");
            }
        }
        self.join = join;
        let complex = !graph.is_empty();
        if complex {
            // Sound not yet in the graph goes through it when it has filters, else is mapped.
            if let Some(s) = sound
                && !self.maps.iter().any(|m| m == "[a]")
            {
                let si = self
                    .inputs
                    .iter()
                    .position(|(i, _)| *i == s.index)
                    .unwrap_or(mi);
                if achain.is_empty() {
                    self.maps.push(format!("{si}:a:0"));
                } else {
                    graph.push(format!("[{si}:a]{}[a]", achain.join(",")));
                    self.maps.push("[a]".into());
                }
            }
            self.complex = Some(graph.join(";"));
        } else {
            if !vchain.is_empty() {
                self.opts.extend(["-vf".to_string(), vchain.join(",")]);
            }
            if !achain.is_empty() && sound.is_some() {
                self.opts.extend(["-af".to_string(), achain.join(",")]);
            }
        }
        // A looped picture has no end: give the output one (`-shortest` overshoots).
        if still {
            let secs = self.out_duration().unwrap_or(STILL_SECONDS);
            self.opts.extend(["-t".to_string(), fmt_num(secs)]);
        }
        let must_encode_video = picture_filtered
            || still
            || self.span.start > 0.0
            || self.span.cut.is_some()
            || self.w.touches_picture();
        let vc = self.video_codec(must_encode_video, sound.is_some())?;
        self.opts.extend(vc);
        match sound {
            Some(s) => {
                // Two tracks share one codec setting, so the added one must fit the container.
                let added_fits = match &self.join {
                    Join::AddTrack(a) => a.acodec().is_some_and(|c| self.fmt.acodecs.contains(&c)),
                    _ => true,
                };
                let must = sound_filtered
                    || self.w.touches_sound()
                    || self.span.cut.is_some()
                    || !added_fits;
                let (ac, enc) = self.audio_codec(s.acodec(), must)?;
                self.opts.extend(ac);
                let rate = s.audio.and_then(|a| a.sample_rate);
                let fo = self.audio_format_options(rate, enc)?;
                self.opts.extend(fo);
            }
            None => self.opts.push("-an".into()),
        }
        self.faststart();
        Ok(self.file_name(None))
    }

    fn build_audio(&mut self) -> Result<String, String> {
        let opts = self.trim_options();
        self.add_input(self.main, opts);
        let achain = self.audio_chain()?;
        self.opts.push("-vn".into());
        if !achain.is_empty() {
            self.opts.extend(["-af".to_string(), achain.join(",")]);
        }
        let must = !achain.is_empty() || self.w.touches_sound();
        let (ac, enc) = self.audio_codec(self.main.acodec(), must)?;
        self.opts.extend(ac);
        let rate = self.main.audio.and_then(|a| a.sample_rate);
        let fo = self.audio_format_options(rate, enc)?;
        self.opts.extend(fo);
        self.faststart();
        Ok(self.file_name(None))
    }

    /// The time a single picture is taken at.
    fn still_time(&self, thumb: &Thumb) -> Result<f64, String> {
        let d = self.duration();
        let t = match thumb {
            Thumb::At(t) => *t,
            Thumb::First => 0.0,
            Thumb::Last => (self.needs_duration("the last frame")? - 0.5).max(0.0),
            Thumb::Middle => self.needs_duration("the middle frame")? / 2.0,
            Thumb::Default => self
                .w
                .at
                .or(self.w.loose_time)
                .or(d.map(|d| d / 2.0))
                .unwrap_or(0.0),
        };
        if let Some(d) = d
            && t >= d
        {
            return Err(format!(
                "{} is only {} s long, so there is no frame at {} s",
                self.name(),
                fmt_num(d),
                fmt_num(t)
            ));
        }
        Ok(t)
    }

    fn build_frames(&mut self) -> Result<String, String> {
        let ext = self.fmt.ext;
        let jpeg = ext == "jpg";
        // "1 frame per second as png": a frame rate asked of pictures is how many to take.
        let frames = self.w.frames.clone().or(match (&self.w.thumb, self.w.fps) {
            (None, Some(r)) => Some(Frames::Rate(r)),
            _ => None,
        });
        // A thumbnail at a named time wins; "a grid of thumbnails" is frames.
        let thumb = match (&self.w.thumb, &frames) {
            (Some(Thumb::Default), Some(_)) => None,
            (Some(t), _) => Some(t.clone()),
            (None, None) => Some(Thumb::Default),
            (None, Some(_)) => None,
        };
        let mut chain = self.picture_chain(false)?;
        let segment = self
            .span
            .end
            .or(self.duration())
            .map(|e| e - self.span.start);
        let (file, single) = match (&thumb, &frames) {
            (Some(t), _) => {
                let at = self.still_time(t)?;
                let mut opts = Vec::new();
                if at > 0.0 {
                    opts = vec!["-ss".to_string(), fmt_num(at)];
                }
                self.add_input(self.main, opts);
                (self.file_name(Some("_thumb")), true)
            }
            (None, Some(f)) => {
                let opts = self.trim_options();
                self.add_input(self.main, opts);
                match f {
                    Frames::Every(secs) => chain.push(format!("fps=1/{}", fmt_num(*secs))),
                    Frames::Rate(r) => chain.push(format!("fps={}", fmt_num(*r))),
                    Frames::Nth(n) => match self.main.fps() {
                        Some(r) => chain.push(format!("fps={}", fmt_num(r / *n as f64))),
                        None => chain.push(format!("select=not(mod(n\\,{n}))")),
                    },
                    Frames::Count(n) => {
                        let secs = segment.ok_or_else(|| {
                            format!("spacing frames needs the length of {}", self.name())
                        })?;
                        chain.push(format!("fps={n}/{}", fmt_num(secs)));
                        self.opts.extend(["-frames:v".to_string(), n.to_string()]);
                    }
                    Frames::Head(n) => self.opts.extend(["-frames:v".to_string(), n.to_string()]),
                    Frames::All => {}
                    Frames::Tile(c, r) => {
                        let secs = segment.ok_or_else(|| {
                            format!("a contact sheet needs the length of {}", self.name())
                        })?;
                        chain.push(format!("fps={}/{}", c * r, fmt_num(secs)));
                        chain.push("scale=320:-2".into());
                        chain.push(format!("tile={c}x{r}"));
                    }
                }
                match f {
                    Frames::Tile(..) => (self.file_name(Some("_sheet")), true),
                    Frames::All | Frames::Head(_) => (self.file_name(Some("_%04d")), false),
                    _ => (self.file_name(Some("_%03d")), false),
                }
            }
            (None, None) => unreachable!("a thumbnail is the default"),
        };
        if !chain.is_empty() {
            self.opts.extend(["-vf".to_string(), chain.join(",")]);
        }
        if single {
            self.opts
                .extend(Self::s(&["-frames:v", "1", "-update", "1"]));
        }
        if jpeg {
            self.opts.extend(Self::s(&["-q:v", "2"]));
        }
        Ok(file)
    }

    fn build_gif(&mut self) -> Result<String, String> {
        if matches!(
            self.join,
            Join::Overlay(_) | Join::Stack(..) | Join::Concat(_)
        ) {
            // Joined inputs go through the video graph; only the palette tail differs.
            return Err(
                "making a GIF of several inputs at once is not supported; make the video first"
                    .into(),
            );
        }
        let opts = self.trim_options();
        self.add_input(self.main, opts);
        let (vcut, _) = self.cut_filters();
        let mut chain: Vec<String> = vcut.into_iter().collect();
        chain.extend(self.picture_chain(false)?);
        chain.extend(self.video_timing()?);
        if self.w.fps.is_none() && self.w.fps_factor.is_none() {
            let rate = self.main.fps().map_or(GIF_FPS, |r| r.min(GIF_FPS));
            chain.push(format!("fps={}", fmt_num(rate)));
        }
        if self.w.resize.is_none()
            && self.main.dims().is_none_or(|(w, _)| w > GIF_WIDTH)
            && self.w.crop.is_none()
        {
            chain.push(format!("scale={GIF_WIDTH}:-1:flags=lanczos"));
        }
        // One palette for the whole clip: far better colours than the default.
        chain.push("split[s0][s1];[s0]palettegen[p];[s1][p]paletteuse".into());
        self.opts.extend(["-vf".to_string(), chain.join(",")]);
        self.opts.push("-an".into());
        Ok(self.file_name(None))
    }

    fn build_still(&mut self) -> Result<String, String> {
        self.add_input(self.main, Vec::new());
        let chain = self.picture_chain(false)?;
        if !chain.is_empty() {
            self.opts.extend(["-vf".to_string(), chain.join(",")]);
        }
        self.opts
            .extend(Self::s(&["-frames:v", "1", "-update", "1"]));
        if self.fmt.ext == "jpg" {
            self.opts.extend(Self::s(&["-q:v", "2"]));
        }
        Ok(self.file_name(None))
    }

    /// `stem.ext`, `stem_tags.ext` when the extension stays the same, or `stem{suffix}.ext`
    /// for frames; never an input's name.
    fn file_name(&self, suffix: Option<&str>) -> String {
        let ext = self.fmt.ext;
        let taken = |n: &str| self.media.iter().any(|m| m.name().eq_ignore_ascii_case(n));
        if suffix.is_none()
            && let Some(own) = self.w.output_name.as_deref()
        {
            let safe: String = own
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                        c
                    } else {
                        '_'
                    }
                })
                .collect();
            let with_ext = match media::ext(&safe) {
                Some(e) if e.eq_ignore_ascii_case(ext) => safe.clone(),
                Some(_) => format!(
                    "{}.{ext}",
                    safe.rsplit_once('.').map_or(safe.as_str(), |(s, _)| s)
                ),
                None => format!("{safe}.{ext}"),
            };
            if !taken(&with_ext) && !with_ext.starts_with('.') {
                return with_ext;
            }
        }
        let stem = self.main.stem();
        let same_ext = media::ext(self.name())
            .is_some_and(|e| formats::by_ext(e).is_some_and(|f| f.ext == ext));
        let mut name = match suffix {
            Some(s) => format!("{stem}{s}.{ext}"),
            None if same_ext || taken(&format!("{stem}.{ext}")) => {
                let tags: Vec<&str> = self.tags.iter().map(String::as_str).take(3).collect();
                let tags = if tags.is_empty() {
                    "out".to_string()
                } else {
                    tags.join("_")
                };
                format!("{stem}_{tags}.{ext}")
            }
            None => format!("{stem}.{ext}"),
        };
        while taken(&name) {
            name = format!(
                "{}_out.{ext}",
                name.rsplit_once('.').map_or(name.as_str(), |(s, _)| s)
            );
        }
        name
    }
}

/// A resize as a `scale` filter, a word for the output name, and the new size if known.
fn resize(
    r: &Resize,
    dims: Option<(u32, u32)>,
    keep_aspect: bool,
    even_sizes: bool,
) -> (String, String, Option<(u32, u32)>) {
    let ev = |x: f64| {
        if even_sizes {
            even(x)
        } else {
            (x.round() as u32).max(1)
        }
    };
    let auto = if even_sizes { "-2" } else { "-1" };
    let flags = if even_sizes { "" } else { ":flags=lanczos" };
    match (r, dims) {
        (Resize::Short(h), Some((iw, ih))) if ih > iw => {
            let w = ev(*h as f64);
            let nh = ev(ih as f64 * w as f64 / iw as f64);
            (
                format!("scale={w}:{nh}{flags}"),
                format!("{h}p"),
                Some((w, nh)),
            )
        }
        (Resize::Short(h) | Resize::Height(h), Some((iw, ih))) => {
            let h2 = ev(*h as f64);
            let w = ev(iw as f64 * h2 as f64 / ih as f64);
            let tag = if matches!(r, Resize::Short(_)) {
                format!("{h}p")
            } else {
                format!("{h}h")
            };
            (format!("scale={w}:{h2}{flags}"), tag, Some((w, h2)))
        }
        (Resize::Short(h) | Resize::Height(h), None) => (
            format!("scale={auto}:{}{flags}", ev(*h as f64)),
            format!("{h}p"),
            None,
        ),
        (Resize::Width(w), Some((iw, ih))) => {
            let w2 = ev(*w as f64);
            let h = ev(ih as f64 * w2 as f64 / iw as f64);
            (
                format!("scale={w2}:{h}{flags}"),
                format!("{w}w"),
                Some((w2, h)),
            )
        }
        (Resize::Width(w), None) => (
            format!("scale={}:{auto}{flags}", ev(*w as f64)),
            format!("{w}w"),
            None,
        ),
        (Resize::Dim(w, h), Some((iw, ih))) if keep_aspect => {
            let s = (*w as f64 / iw as f64).min(*h as f64 / ih as f64);
            let (nw, nh) = (ev(iw as f64 * s), ev(ih as f64 * s));
            (
                format!("scale={nw}:{nh}{flags}"),
                format!("{w}x{h}"),
                Some((nw, nh)),
            )
        }
        (Resize::Dim(w, h), _) => {
            let (nw, nh) = (ev(*w as f64), ev(*h as f64));
            (
                format!("scale={nw}:{nh}{flags}"),
                format!("{w}x{h}"),
                Some((nw, nh)),
            )
        }
        (Resize::Factor(f), Some((iw, ih))) => {
            let (nw, nh) = (ev(iw as f64 * f), ev(ih as f64 * f));
            let tag = if *f < 1.0 { "smaller" } else { "larger" };
            (
                format!("scale={nw}:{nh}{flags}"),
                tag.into(),
                Some((nw, nh)),
            )
        }
        (Resize::Factor(f), None) => {
            let tag = if *f < 1.0 { "smaller" } else { "larger" };
            let f = fmt_num(*f);
            (
                format!("scale=trunc(iw*{f}/2)*2:trunc(ih*{f}/2)*2{flags}"),
                tag.into(),
                None,
            )
        }
    }
}
