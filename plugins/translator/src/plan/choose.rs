//! The shape of the task: which input is the main one, how the others join it, what kind
//! of output it makes and in which format.

use super::{PlanError, Planned};
use crate::formats::{self, Format, Kind as FormatKind};
use crate::intents::FormatHow;
use crate::media::{self, Kind, Media};
use crate::wants::Wants;

/// What the output is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Mode {
    Video,
    Audio,
    /// One or more pictures taken from a video.
    Frames,
    Gif,
    /// A picture made from a picture.
    Still,
}

/// How a second input joins the main one.
pub enum Join<'m> {
    None,
    ReplaceAudio(&'m Media<'m>),
    AddTrack(&'m Media<'m>),
    Mix(&'m Media<'m>),
    Overlay(&'m Media<'m>),
    Concat(Vec<&'m Media<'m>>),
    Stack(&'m Media<'m>, bool),
}

/// The input the instruction is about: the first video, else the first picture, else the
/// first file.
pub fn pick_main<'m>(media: &'m [Media<'m>]) -> &'m Media<'m> {
    media
        .iter()
        .find(|m| m.kind == Kind::Video)
        .or_else(|| media.iter().find(|m| m.kind == Kind::Still))
        .or_else(|| media.iter().find(|m| m.kind != Kind::Subtitle))
        .unwrap_or(&media[0])
}

pub fn join<'m>(media: &'m [Media<'m>], main: &'m Media<'m>, w: &Wants) -> Planned<Join<'m>> {
    let others: Vec<&Media> = media
        .iter()
        .filter(|m| m.index != main.index && m.kind != Kind::Subtitle)
        .collect();
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
    // Sound files joined one after the other ("put song.mp3 and then tone.wav in one mp3").
    let sounds: Vec<&Media> = media.iter().filter(|m| m.kind == Kind::Audio).collect();
    if w.concat && videos.is_empty() && main.kind == Kind::Audio && sounds.len() >= 2 {
        return Ok(Join::Concat(sounds));
    }
    if w.concat || (w.combine && videos.len() >= 2 && !w.overlay) {
        if videos.len() < 2 {
            return Err(PlanError::NeedsInput(
                "joining clips needs at least two video inputs",
            ));
        }
        return Ok(Join::Concat(videos));
    }
    if let Some(horizontal) = w.stack {
        let other = picture_src.ok_or(PlanError::NeedsInput(
            "stacking needs a second video or picture input",
        ))?;
        return Ok(Join::Stack(other, horizontal));
    }
    if w.overlay || (w.combine && picture_src.is_some_and(|m| m.kind == Kind::Still)) {
        let logo = picture_src.ok_or(PlanError::NeedsInput(
            "a watermark or overlay needs a second input: the picture to put on the video",
        ))?;
        return Ok(Join::Overlay(logo));
    }
    let new_audio = w.replace_audio || w.add_track || w.mix_audio || w.add_audio || w.combine;
    if new_audio {
        let src = audio_src.ok_or(PlanError::NeedsInput(
            "adding or replacing audio needs a second input that has audio",
        ))?;
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

/// Words that put a clip before or after another whatever order they are named in ("b.mp4
/// after a.mp4", "a.mp4 and b.mp4, b.mp4 first").
const ORDER_WORDS: &[&str] = &[
    "after",
    "before",
    "following",
    "follows",
    "preceded",
    "precedes",
    "first",
    "last",
    "beginning",
    "start",
    "end",
    "behind",
    "ahead",
    "second",
];

/// The clips joined in the order the instruction names them ("join clip2.mp4 and clip.mp4"
/// had joined clip.mp4 first, the order of the inputs). An order said with words this does not
/// follow (`ORDER_WORDS`, left unread) is refused rather than guessed. Files said to come
/// first (`Wants::join_order`: "a.mp4 first", "b.mp4 on the end of a.mp4") lead, in that order.
pub fn join_order<'m>(
    list: Vec<&'m Media<'m>>,
    u: &crate::intents::Understanding,
    first: &[String],
) -> Planned<Vec<&'m Media<'m>>> {
    let mut named: Vec<&'m Media<'m>> = Vec::new();
    let said = first.iter().chain(u.files_in.iter().map(|(_, name)| name));
    for name in said {
        if let Some(m) = list.iter().find(|m| m.name().eq_ignore_ascii_case(name))
            && !named.iter().any(|n| n.index == m.index)
        {
            named.push(m);
        }
    }
    let ordered_by_words = u
        .leftovers
        .iter()
        .flat_map(|l| l.split_whitespace())
        .any(|w| ORDER_WORDS.contains(&w));
    if named.len() >= 2 && ordered_by_words {
        return Err(PlanError::NotSupported(
            "it says in which order to join the clips in words this translator does not follow; name them in the order to join (\"join a.mp4 and b.mp4\": a.mp4 first)",
        ));
    }
    if named.len() == list.len() {
        return Ok(named);
    }
    Ok(list)
}

/// The output format asked for: the last one named with "to"/"as"/… that is not an input's
/// own format, else the output file name's, else the last one named that is not an input's
/// own format, else an input's own format named with "to"/"as"/… ("make mkv mp4", the reading
/// of "mkvをmp4に", names the input first: the output is the mp4).
pub fn target_format(w: &Wants, media: &[Media]) -> Option<&'static Format> {
    let input_keys: Vec<&str> = media
        .iter()
        .filter_map(|m| m.format.map(|f| f.key))
        .collect();
    // "my player reads only mp3 audio: convert the audio to mp3" (2026-11-29): a format named
    // as the audio codec asked for is the codec's, not the container's.
    let codec_named = |k: &str| w.acodec.as_deref() == Some(k);
    let targets = || {
        w.formats
            .iter()
            .rev()
            .filter(|(_, how)| *how == FormatHow::Target)
    };
    if let Some((k, _)) = targets().find(|(k, _)| !input_keys.contains(&k.as_str())) {
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
    if let Some((k, _)) = w.formats.iter().rev().find(|(k, how)| {
        *how == FormatHow::Mention && !input_keys.contains(&k.as_str()) && !codec_named(k)
    }) {
        return formats::format(k);
    }
    if let Some((k, _)) = targets().next() {
        return formats::format(k);
    }
    // "a gif for WhatsApp": a place it plays names a format only when no other is named.
    w.formats
        .iter()
        .rev()
        .find(|(k, how)| *how == FormatHow::Compatible && !input_keys.contains(&k.as_str()))
        .or_else(|| {
            w.formats
                .iter()
                .find(|(_, how)| *how == FormatHow::Compatible)
        })
        .and_then(|(k, _)| formats::format(k))
}

pub fn mode(w: &Wants, main: &Media, target: Option<&Format>, join: &Join) -> Planned<Mode> {
    // "turn the picture into a video" with no picture given had answered with the sound file
    // copied: a picture made into a video needs one.
    if w.image_to_video && main.kind != Kind::Still {
        return Err(PlanError::Unsupported(format!(
            "it asks to make a picture into a video, but {} is not a picture",
            main.name()
        )));
    }
    let target_kind = target.map(|f| f.kind);
    let mode = if let Join::Concat(list) = join
        && list.iter().all(|m| m.kind == Kind::Audio)
    {
        Mode::Audio
    } else if matches!(join, Join::Concat(_) | Join::Stack(..) | Join::Overlay(_)) {
        // "join them and take a thumbnail at 11 s" had answered with the joined video.
        if w.thumb.is_some() || w.frames.is_some() || target_kind == Some(FormatKind::Image) {
            return Err(PlanError::NotSupported(
                "taking pictures of several inputs put together is not supported in one step; make the video first, then take the pictures from it",
            ));
        }
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
            // "extract the audio and convert the video to webm": the sound alone beside a
            // video's format; it had answered an .m4a, the webm dropped (2026-11-30, sixteenth
            // pass). MP4's and MOV's sound alone is the .m4a ("extract the audio as mp4").
            Some(FormatKind::Video)
                if w.extract_audio && target.is_some_and(|f| !matches!(f.key, "mp4" | "mov")) =>
            {
                return Err(PlanError::Unsupported(format!(
                    "it asks for the sound alone and names {}, a video's format; name a sound's format (mp3, m4a, wav), or ask for the video in its own request",
                    target.map_or("", |f| f.key)
                )));
            }
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
    let missing = |kind| PlanError::NoStream {
        file: main.name().into(),
        kind,
    };
    match mode {
        Mode::Audio if !main.has_audio() => Err(missing("audio")),
        Mode::Video | Mode::Frames | Mode::Gif | Mode::Still
            if main.video.is_none() && main.kind != Kind::Unknown =>
        {
            Err(missing("video"))
        }
        _ => Ok(mode),
    }
}

/// The video codec asked for: the last one named with "to"/"with"/…, else the last one named
/// that is not the input's own.
pub fn requested_vcodec(w: &Wants, main: &Media) -> Option<&'static formats::VideoEncoder> {
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

pub fn output_format(
    w: &Wants,
    mode: Mode,
    target: Option<&'static Format>,
    main: &Media,
) -> Planned<&'static Format> {
    let fallback = |key: &str| formats::format(key).ok_or(PlanError::NoEncoder("output"));
    match mode {
        Mode::Video => {
            let vcodec = requested_vcodec(w, main);
            if let Some(t) = target.filter(|t| t.kind == FormatKind::Video) {
                if let Some(enc) = vcodec.filter(|e| !t.vcodecs.contains(&e.codec)) {
                    return Err(PlanError::CannotHold {
                        container: t.ext,
                        what: format!("{} video", enc.codec),
                        instead: Some(enc.container),
                    });
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
        // Pictures asked for with a video or sound format named ("every 5 seconds into mp4
        // files"): the pictures would not be what was asked for.
        Mode::Frames | Mode::Still
            if target.is_some_and(|t| matches!(t.kind, FormatKind::Video | FormatKind::Audio)) =>
        {
            Err(PlanError::NotSupported(
                "pictures were asked for in a video or audio format; parts of a video as video files are not something this translator makes",
            ))
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
        Mode::Gif => Ok(target
            .filter(|t| t.kind == FormatKind::Gif)
            .map_or_else(|| fallback("gif"), Ok)?),
    }
}
