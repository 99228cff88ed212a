//! Checks of a plan against what was asked: a change the output cannot carry, what is said to be
//! kept, a value against its verb. Each had answered a file without the change, or with the
//! opposite; each is refused naming why.

use super::choose::Mode;
use super::{PlanError, Planned, Planner, picture, resize};
use crate::formats::Format;
use crate::intents::Held;
use crate::media::{Kind, Media};
use crate::numbers::fmt_num;
use crate::wants::Wants;

/// A change the output's kind cannot carry, which would be dropped: a change to the sound or to
/// time beside pictures, a file size beside a GIF, a change to the picture beside the sound alone.
pub(super) fn carried_by(w: &Wants, main: &Media, mode: Mode) -> Planned<()> {
    // Pictures taken from a video have no sound and no time: a change of speed, a reverse, a
    // fade or a change to the sound asked beside them would be dropped ("take a thumbnail at
    // 3 s and make it louder" had answered with the thumbnail alone).
    if matches!(mode, Mode::Frames | Mode::Still) && main.kind != Kind::Still {
        let dropped = [
            (w.speed.is_some(), "a change of speed"),
            (w.reverse, "reversing"),
            (!w.fades.is_empty(), "a fade"),
            (
                w.volume.is_some()
                    || w.normalize.is_some()
                    || !w.afilters.is_empty()
                    || w.channels.is_some()
                    || w.sample_rate.is_some()
                    || w.abitrate.is_some(),
                "a change to the sound",
            ),
        ];
        if let Some((_, what)) = dropped.iter().find(|(asked, _)| *asked) {
            return Err(PlanError::Unsupported(format!(
                "it asks for pictures, and {what} does not apply to a picture; make the video first, then take the pictures from it"
            )));
        }
    }
    // "make a gif under 1mb": a GIF's size is not aimed at by a bit rate, and the limit had
    // been dropped (2026-11-29, fifteenth pass). A compression a place implies ("for
    // whatsapp") is left to the GIF's own size, as before.
    if mode == Mode::Gif && (w.target_size.is_some() || w.target_factor.is_some()) {
        return Err(PlanError::Unsupported(
        "a GIF's file size is not aimed at here; say its width (\"320 wide\") or its frame rate (\"5 fps\")".into(),
    ));
    }
    // "convert to jpg under 200kb": nor a picture's; the limit had been dropped (2026-11-30,
    // sixteenth pass).
    if matches!(mode, Mode::Still | Mode::Frames)
        && (w.target_size.is_some() || w.target_factor.is_some())
    {
        return Err(PlanError::Unsupported(
            "a picture's file size is not aimed at here; say its size (\"640 wide\") or its format (\"jpg\")".into(),
        ));
    }
    // "extract the audio as mp3 and make it 720p": a change to the picture beside an output of
    // sound alone would be dropped (the 720p had been) (2026-11-29, fifteenth pass).
    if mode == Mode::Audio && main.has_picture() {
        let picture = [
            (w.resize.is_some(), "a size"),
            (w.crop.is_some() || w.pad.is_some(), "a crop or bars"),
            (w.rotate != 0 || w.hflip || w.vflip, "a turn or a mirror"),
            (w.fps.is_some() || w.fps_factor.is_some(), "a frame rate"),
            (
                w.grayscale || !w.vfilters.is_empty() || w.blur_region.is_some(),
                "a change to the picture",
            ),
            (
                w.overlay || w.subtitles.is_some(),
                "something laid over the picture",
            ),
            (
                (w.vbitrate.is_some() && !w.bare_bitrate) || !w.vcodecs.is_empty(),
                "a video codec or bit rate",
            ),
        ];
        if let Some((_, what)) = picture.iter().find(|(asked, _)| *asked) {
            return Err(PlanError::Unsupported(format!(
                "it asks for the sound alone, and {what} does not apply to sound; ask for the video and the sound in separate requests"
            )));
        }
    }
    Ok(())
}

/// "compress it", "make it smaller" of a picture kept in its format and size (2026-11-29).
pub(super) fn picture_made_smaller(
    w: &Wants,
    main: &Media,
    mode: Mode,
    fmt: &Format,
) -> Planned<()> {
    // "compress it", "make it smaller" of a picture kept in its format and size: nothing here
    // makes a picture smaller but another size or format; it had answered the same picture
    // (2026-11-29, fifteenth pass).
    if mode == Mode::Still
        && main.kind == Kind::Still
        && (w.compress.is_some() || w.target_size.is_some() || w.target_factor.is_some())
        && w.resize.is_none()
        && w.crop.is_none()
        && main.format.is_some_and(|f| f.ext == fmt.ext)
    {
        return Err(PlanError::Unsupported(format!(
            "{} is a picture, and a smaller file of it needs a smaller size or another format; say which (\"resize it to 640 wide\", \"convert it to jpg\")",
            main.name()
        )));
    }
    Ok(())
}

/// "keep it at 1080p", "keep it at 60fps", "keep it vertical" keep what the input has: of a 720p
/// input "keep 1080p" had made 1080p, of a 30 fps one "keep it at 60fps" 60 fps, and "keep it
/// vertical" had cropped a landscape picture (2026-11-29). Said of what the input lacks, it is
/// refused.
pub(super) fn held(p: &Planner) -> Result<(), PlanError> {
    let dims = p.main.dims();
    for held in &p.w.held {
        let (holds, said, change) = match held {
            Held::Size(r) => (
                dims.is_some()
                    && resize::filter(r, dims, true, picture::Rounding { even: true }).2 == dims,
                "a size",
                "resize it to ...",
            ),
            Held::Fps(f) => (
                p.main.fps().is_some_and(|has| (has - f).abs() < 0.05),
                "a frame rate",
                "make it ... fps",
            ),
            Held::Portrait(portrait) => (
                dims.is_some_and(|(w, h)| (h > w) == *portrait && w != h),
                if *portrait {
                    "a portrait shape"
                } else {
                    "a landscape shape"
                },
                "crop it to 9:16",
            ),
        };
        if holds {
            continue;
        }
        let has = match (held, dims, p.main.fps()) {
            (Held::Fps(_), _, Some(f)) => format!("{} fps", fmt_num(f)),
            (_, Some((w, h)), _) => format!("{w}x{h}"),
            _ => "not known here".into(),
        };
        return Err(PlanError::Unsupported(format!(
            "it asks to keep {said} {} does not have: it is {has}; say the change you want (\"{change}\") or leave it out",
            p.name()
        )));
    }
    Ok(())
}

/// "reduce the resolution to 1080p" of a 720p clip, "upscale it to 480p", "lower the frame rate
/// to 60" of a 30 fps one: the value goes the other way than its verb, and each had been made
/// (2026-11-29). Refused, naming what the input is.
pub(super) fn direction(p: &Planner) -> Result<(), PlanError> {
    let contrary = |dir: i8, from: f64, to: f64| (dir < 0 && to > from) || (dir > 0 && to < from);
    if let (Some(dir), Some(r), Some((iw, ih))) = (p.w.resize_dir, &p.w.resize, p.main.dims())
        && let (_, _, Some((nw, nh))) = resize::filter(
            r,
            Some((iw, ih)),
            p.w.keep_aspect,
            picture::Rounding { even: true },
        )
        && contrary(
            dir,
            f64::from(iw) * f64::from(ih),
            f64::from(nw) * f64::from(nh),
        )
    {
        return Err(PlanError::Unsupported(format!(
            "it asks to make the picture {}, to {nw}x{nh}, and {} is {iw}x{ih}",
            if dir < 0 { "smaller" } else { "larger" },
            p.name()
        )));
    }
    if let (Some(dir), Some(f), Some(has)) = (p.w.fps_dir, p.w.fps, p.main.fps())
        && contrary(dir, has, f)
        && (f - has).abs() > 0.01
    {
        return Err(PlanError::Unsupported(format!(
            "it asks to {} the frame rate, to {} fps, and {} is {} fps",
            if dir < 0 { "lower" } else { "raise" },
            fmt_num(f),
            p.name(),
            fmt_num(has)
        )));
    }
    Ok(())
}
