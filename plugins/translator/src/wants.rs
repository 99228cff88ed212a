//! The intents of one instruction folded into one record of what is wanted, so the plan
//! can ask "is there a crop?" rather than search a list. Later intents override earlier
//! ones of the same kind ("convert to mp4 ... actually webm").

use crate::intents::{
    Crop, End, FadeKind, Fill, FormatHow, Frames, Held, Intent, Level, LoopTo, Pad, Qualifier,
    Resize, Shown, Strength, Thumb, Trim, Understanding,
};

#[derive(Debug, Default)]
pub struct Wants {
    pub unsupported: Option<String>,
    pub output_name: Option<String>,
    pub thumb: Option<Thumb>,
    pub frames: Option<Frames>,
    pub fades: Vec<(FadeKind, Option<f64>, bool)>,
    pub afilters: Vec<String>,
    pub vfilters: Vec<String>,
    pub denoise: bool,
    pub replace_audio: bool,
    pub add_track: bool,
    pub mix_audio: bool,
    pub add_audio: bool,
    pub extract_audio: bool,
    pub remove_audio: bool,
    pub speed: Option<f64>,
    /// The sound reversed; `reverse_picture` the picture too.
    pub reverse: bool,
    pub reverse_picture: bool,
    pub volume: Option<Level>,
    /// Degrees clockwise, summed.
    pub rotate: i32,
    pub hflip: bool,
    pub vflip: bool,
    pub crop: Option<Crop>,
    pub pad: Option<Pad>,
    pub resize: Option<Resize>,
    pub keep_aspect: bool,
    /// A size of another shape reached by stretching ("stretch it"), not by bars.
    pub stretch: bool,
    pub fps: Option<f64>,
    pub fps_factor: Option<f64>,
    pub channels: Option<u32>,
    pub sample_rate: Option<u32>,
    /// `Some(None)`: normalize to the default loudness.
    pub normalize: Option<Option<f64>>,
    pub abitrate: Option<u32>,
    pub vbitrate: Option<u32>,
    pub target_size: Option<f64>,
    pub target_factor: Option<f64>,
    pub crf: Option<u32>,
    pub compress: Option<Strength>,
    pub quality_high: bool,
    pub lossless: bool,
    pub reencode: bool,
    pub trims: Vec<Trim>,
    pub grayscale: bool,
    pub overlay: bool,
    pub overlay_size: Option<f64>,
    /// The colour the picture fades from or to ("fade to white"); black when `None`.
    pub fade_color: Option<String>,
    /// "don't upscale": a size asked for applies only where it makes the picture smaller.
    pub no_upscale: bool,
    /// The watermark's distance from the edges, in pixels.
    pub overlay_margin: Option<u32>,
    /// The watermark shown for part of the time only.
    pub overlay_span: Option<Shown>,
    pub opacity: Option<f64>,
    pub concat: bool,
    /// Files said to come first, in order ("a.mp4 first"; all of them when said as one join).
    pub join_order: Vec<String>,
    /// `Some(true)`: side by side.
    pub stack: Option<bool>,
    /// A length was asked as such ("30 seconds long"), not as a ceiling ("at most 30 s").
    pub exact_length: bool,
    /// The bit rate was said alone, at a sound's rate (`Intent::BareBitrate`).
    pub bare_bitrate: bool,
    /// The result ends with the shorter of two inputs played together ("end when the shorter
    /// one ends").
    pub end_shortest: bool,
    /// The true peak a normalisation keeps under (dBTP); -1.5 when none is said.
    pub true_peak: Option<f64>,
    /// Each stacked picture's size ("side by side, each 640x360"), not the result's.
    pub each_size: Option<(u32, u32)>,
    pub combine: bool,
    pub image_to_video: bool,
    /// Time added: (where, seconds, what fills it).
    pub extends: Vec<(End, f64, Fill)>,
    /// Plays in all (2: twice).
    pub repeat: Option<u32>,
    pub loop_for: Option<f64>,
    /// One input repeated for as long as the other lasts.
    pub loop_to: Option<LoopTo>,
    /// "as long as the song": the result lasts as long as the sound it is given.
    pub length_of_sound: bool,
    /// "as long as the video": said beside a sound laid under it.
    pub length_of_picture: bool,
    /// Words of how a GIF looks were said; `gif_smooth`: "smooth" among them.
    pub gif_look: bool,
    pub gif_smooth: bool,
    /// `Some(true)`: burnt into the picture; `Some(false)`: a subtitle track.
    pub subtitles: Option<bool>,
    pub acodec: Option<String>,
    /// (codec key, named with a preposition such as "to"/"with").
    pub vcodecs: Vec<(String, bool)>,
    pub formats: Vec<(String, FormatHow)>,
    pub corner: Option<String>,
    pub color: Option<String>,
    /// Padding filled with the picture itself, scaled up and blurred, instead of a colour.
    pub blur_fill: bool,
    /// Streams said to be left as they are: (sound, picture).
    pub untouched: (bool, bool),
    /// Streams said to be kept in the output: (sound, picture).
    pub kept: (bool, bool),
    /// An area blurred: (width, height), at `corner`.
    pub blur_region: Option<(u32, u32)>,
    pub at: Option<f64>,
    pub loose_time: Option<f64>,
    /// Parts of this many seconds, each its own file.
    pub segment: Option<f64>,
    /// A subtitle file asked for, in this format (`srt`, `vtt`, `ass`).
    pub sub_format: Option<String>,
    /// Rotations implied by descriptions, used only when none is named.
    pub rotate_hint: Option<i32>,
    /// "don't crop it".
    pub no_crop: bool,
    /// The picture's orientation said as the result of a turn ("rotate it 90° so it is
    /// portrait"): `true` for portrait. Checked once the input's size is known.
    pub orientation: Option<bool>,
    /// The streams copied, never encoded ("without re-encoding").
    pub no_reencode: bool,
    /// The picture keeps its size ("don't change the resolution").
    pub keep_size: bool,
    /// The way a resize or a frame rate was said to go ("reduce it to 1080p": down; -1, 1):
    /// checked against the input (`plan::checks::direction`).
    pub resize_dir: Option<i8>,
    pub fps_dir: Option<i8>,
    /// What it keeps, said as the input's ("keep it at 1080p"): checked against the input.
    pub held: Vec<Held>,
    /// It plays as long as the input ("same length as before").
    pub same_length: bool,
    /// Parts of equal length, this many.
    pub segment_count: Option<u32>,
    /// Parts cut at these times (seconds, ascending), each its own file.
    pub split_at: Vec<f64>,
    /// Clips joined by crossfades of this length.
    pub crossfade: Option<f64>,
    /// Settings named twice with different values ("720p ... 480p"): which one was meant
    /// cannot be known, so the plan refuses rather than let the later one win silently.
    pub conflicts: Vec<String>,
}

impl Qualifier {
    /// Why the request lacks what this says something of, if it does.
    fn unmet(self, w: &Wants) -> Option<&'static str> {
        let met = match self {
            Qualifier::NotLonger => {
                w.length_of_sound
                    || w.loop_to.is_some()
                    || w.loop_for.is_some()
                    || w.crossfade.is_some()
                    || w.trims.iter().any(|t| {
                        matches!(
                            t,
                            Trim::Duration(_)
                                | Trim::Range(..)
                                | Trim::KeepHead(_)
                                | Trim::KeepTail(_)
                        )
                    })
            }
            Qualifier::NotBars => w.blur_fill,
            Qualifier::ThatSize => w.resize.is_some() || w.pad.is_some() || w.crop.is_some(),
            Qualifier::SoftJoin => w.crossfade.is_some(),
            Qualifier::RestClean => w.overlay_span.is_some(),
            Qualifier::SoundFadesToo => w.fades.iter().any(|(_, _, audio_only)| !audio_only),
            // A centred crop to a shape narrower than 1:1 takes off the sides; wider, the top
            // and bottom (the inputs' shape is not known here: a 16:9 input is assumed only
            // in that a portrait shape is narrower and a wide one wider).
            Qualifier::CropSides(sides) => match &w.crop {
                Some(Crop::Aspect(r)) => (*r < 1.0) == sides,
                _ => false,
            },
        };
        (!met).then_some(match self {
            Qualifier::NotLonger => "\"not longer\" limits a length, and no length was named",
            Qualifier::NotBars => {
                "\"instead of black bars\" says what the padding should not be, not what fills it (\"fill it with a blurred copy of the video\") or whether to crop"
            }
            Qualifier::ThatSize => "it asks for \"this size\", and no size was named",
            Qualifier::SoftJoin => {
                "it asks for no hard cut between the clips, and no crossfade was asked for (\"join them with a 1 second crossfade\")"
            }
            Qualifier::RestClean => {
                "it says the rest should be clean, and not for how long the watermark is shown (\"only for the first 5 seconds\")"
            }
            Qualifier::SoundFadesToo => {
                "it says the sound fades too, and no fade of the picture was asked for (\"fade in and out, sound too\")"
            }
            Qualifier::CropSides(_) => {
                "it says which edges to crop, and not to what shape (\"crop it to 9:16\"), or the edges named do not make that shape"
            }
        })
    }
}

/// The refusal of a "flip" said of a picture that is upside down.
const FLIP_UPSIDE_DOWN: &str = "\"flip it\" of a picture upside down is said both of turning it 180 degrees and of mirroring it top to bottom; say \"rotate it 180 degrees\" or \"flip it vertically\"";

/// A blur said in one word, as an adjective of what it is beside.
const BLUR_WORDS: &[&str] = &["blurred", "blurry", "blur"];

/// A place said in parts ("at the bottom, to the right": bottom-right) or once; two different
/// places are a conflict, never the later one silently.
fn place(old: Option<String>, new: String, conflicts: &mut Vec<String>) -> String {
    let Some(old) = old else { return new };
    let vertical = |p: &str| matches!(p, "top" | "bottom");
    let horizontal = |p: &str| matches!(p, "left" | "right");
    if old == new || old.starts_with(&format!("{new}-")) || old.ends_with(&format!("-{new}")) {
        old
    } else if new.starts_with(&format!("{old}-")) || new.ends_with(&format!("-{old}")) {
        new
    } else if vertical(&old) && horizontal(&new) {
        format!("{old}-{new}")
    } else if horizontal(&old) && vertical(&new) {
        format!("{new}-{old}")
    } else {
        conflicts.push("places".into());
        new
    }
}

/// Sets a single-valued want. A value named with a number ("480p", "2x") wins over one a bare
/// word implies ("upscale": twice the size) whichever comes first; two named values, or two
/// implied ones, that differ are a conflict.
fn set<T: PartialEq + std::fmt::Debug>(
    slot: &mut Option<(T, bool)>,
    value: T,
    named: bool,
    what: &str,
    conflicts: &mut Vec<String>,
) {
    match slot.as_ref() {
        Some((old, _)) if *old == value => {}
        Some((_, true)) if !named => {}
        Some((_, old_named)) if *old_named == named => {
            conflicts.push(what.to_string());
            *slot = Some((value, named));
        }
        _ => *slot = Some((value, named)),
    }
}

/// Words that say which way a change goes: (down, up).
const RESIZE_WORDS: (&[&str], &[&str]) = (
    &[
        "shrink",
        "downsize",
        "downscale",
        "reduce",
        "lower",
        "decrease",
        "smaller",
        "down",
    ],
    &[
        "upscale", "enlarge", "increase", "raise", "bigger", "larger", "up", "higher",
    ],
);
const FPS_WORDS: (&[&str], &[&str]) = (
    &["lower", "reduce", "decrease", "drop", "halve", "down"],
    &["increase", "raise", "higher", "up", "double"],
);

/// -1 when the phrase says down, 1 up, `None` when neither or both.
fn direction(words: &str, (down, up): (&[&str], &[&str])) -> Option<i8> {
    let said = |list: &[&str]| words.split(' ').any(|w| list.contains(&w));
    match (said(down), said(up)) {
        (true, false) => Some(-1),
        (false, true) => Some(1),
        _ => None,
    }
}

/// Single-valued wants while they are read, each with whether its value was named.
#[derive(Default)]
struct Slots {
    thumb: Option<(Thumb, bool)>,
    frames: Option<(Frames, bool)>,
    speed: Option<(f64, bool)>,
    segment: Option<(f64, bool)>,
    segment_count: Option<(u32, bool)>,
    volume: Option<(Level, bool)>,
    crop: Option<(Crop, bool)>,
    resize: Option<(Resize, bool)>,
    fps: Option<(f64, bool)>,
    channels: Option<(u32, bool)>,
    sample_rate: Option<(u32, bool)>,
    abitrate: Option<(u32, bool)>,
    vbitrate: Option<(u32, bool)>,
    target_size: Option<(f64, bool)>,
    crf: Option<(u32, bool)>,
    repeat: Option<(u32, bool)>,
    acodec: Option<(String, bool)>,
}

impl Wants {
    pub fn from(u: &Understanding) -> Wants {
        let mut w = Wants::default();
        let mut slots = Slots::default();
        // A single-valued want: `set` on its slot, a conflict recorded.
        macro_rules! put {
            ($slot:ident, $value:expr, $named:expr, $what:literal) => {
                set(&mut slots.$slot, $value, $named, $what, &mut w.conflicts)
            };
        }
        // Every time said with no role of its own, and whether a split was asked for: a split
        // takes them as its cut points (`split_points`).
        let mut times_said = Vec::new();
        let (mut split, mut part_count) = (false, None);
        let mut rest_discarded = false;
        let mut remove_said = false;
        let mut margin = None;
        let mut qualifiers = Vec::new();
        let mut bars = false;
        // Whether a crop was said with a verb of cutting ("crop it square"), not a shape alone
        // ("make it a square").
        let mut crop_verb = false;
        // A "flip" that names no axis: beside "it's upside down" it is the fix for it.
        let mut bare_flip = false;
        // Whether the crop's shape was said by an orientation alone ("portrait"), no ratio.
        let mut orientation_said = false;
        // The clause a reverse or a repeat was said in: a cut said in a later clause is the
        // result's, which this does not turn into the input's ("repeat the first second 3
        // times" says its part in the same clause).
        let mut reorder_at: Option<(usize, &str)> = None;
        let mut trims_in = Vec::new();
        for (k, (intent, words)) in u.heard.iter().enumerate() {
            let clause = u.clause_of.get(k).copied().unwrap_or(0);
            let named = words.chars().any(|c| c.is_ascii_digit())
                || matches!(intent, Intent::Thumb(t) if *t != Thumb::Default);
            match intent.clone() {
                Intent::Unsupported(why) => w.unsupported = Some(why),
                // Answered (or refused) before a task is planned: `crate::recipes`.
                Intent::Recipe(_) => {}
                // Said of a named job, but none was asked for (it would have been answered
                // with its recipe): what it should change cannot be told.
                Intent::JobPart(part) => {
                    w.unsupported = Some(if part == "streaming" {
                        "a playlist, segments or several qualities are what a streaming package (HLS or DASH) holds; ask for one of them".into()
                    } else {
                        "the times asked for are what an analysis lists (silences, scene changes, black or frozen parts); ask for one of them".into()
                    })
                }
                Intent::OutputName(n) => w.output_name = Some(n),
                Intent::Thumb(t) => put!(thumb, t, named, "the frame to take"),
                Intent::Frames(f) => {
                    // The same frames said twice over: "one image of 9 thumbnails in a 3x3 grid"
                    // (counts the grid holds), "1秒ごとに1枚" (one picture at each second): the
                    // grid, the rate (2026-11-28).
                    let said = slots.frames.as_ref().map(|(old, _)| old.clone());
                    let counted = |old: &Frames, new: &Frames| match (old, new) {
                        // "one image" of a grid is the sheet itself.
                        (Frames::Tile(c, r), Frames::Count(n)) => c * r == *n || *n == 1,
                        (Frames::Every(_) | Frames::Rate(_), Frames::Count(1)) => true,
                        _ => false,
                    };
                    match said {
                        Some(old) if counted(&old, &f) => {}
                        Some(old) if counted(&f, &old) => slots.frames = Some((f, named)),
                        // "take 5 thumbnails and make a contact sheet": a sheet and pictures
                        // of another count; the count had won and the sheet been dropped
                        // (2026-11-29, fifteenth pass). A rate beside it names the stills a
                        // sheet is made of ("stills for a contact sheet: one jpg every 2 s").
                        Some(old)
                            if matches!(
                                (&old, &f),
                                (Frames::Tile(..), Frames::Count(_))
                                    | (Frames::Count(_), Frames::Tile(..))
                            ) =>
                        {
                            w.conflicts.push(
                                "kinds of pictures (one contact sheet, or separate ones)".into(),
                            )
                        }
                        _ => put!(frames, f, named, "how many frames to take"),
                    }
                }
                Intent::Fade {
                    kind,
                    secs,
                    audio_only,
                } => {
                    // "fade to white": the fade's colour (the picture fades to black otherwise).
                    if words.split(' ').any(|x| x.ends_with("white")) {
                        w.fade_color = Some("white".into());
                    }
                    w.fades.push((kind, secs, audio_only))
                }
                // Said twice ("it has a hiss: reduce the noise") it is one filter, as a picture's.
                Intent::AudioFilter(f) => {
                    if !w.afilters.contains(&f) {
                        w.afilters.push(f)
                    }
                }
                Intent::VideoFilter(f) => {
                    if !w.vfilters.contains(&f) {
                        w.vfilters.push(f)
                    }
                }
                Intent::Denoise => w.denoise = true,
                Intent::ReplaceAudio => w.replace_audio = true,
                Intent::AddTrack => w.add_track = true,
                Intent::MixAudio => w.mix_audio = true,
                Intent::AddAudio => w.add_audio = true,
                Intent::ExtractAudio => w.extract_audio = true,
                Intent::RemoveAudio => w.remove_audio = true,
                // "speed it up 2x, then cut the first 2 seconds": the cut is the result's, as
                // after a reverse (below); it had been made to the input, 1 s of the result
                // (2026-11-29, fifteenth pass).
                Intent::Speed(s) => {
                    reorder_at.get_or_insert((clause, "a speed change"));
                    put!(speed, s, named, "speeds")
                }
                Intent::Timelapse => {
                    put!(speed, 8.0, false, "speeds");
                    w.remove_audio = true;
                }
                Intent::Segment(secs) => put!(segment, secs, named, "part lengths"),
                Intent::NoReencode => w.no_reencode = true,
                // A turn of no amount ("rotate it") leaves a described one in place.
                Intent::RotateHint(d) => {
                    if d != 0 || w.rotate_hint.is_none() {
                        w.rotate_hint = Some(d)
                    }
                }
                Intent::NoCrop => w.no_crop = true,
                Intent::SubtitleFormat(k) => w.sub_format = Some(k),
                Intent::KeepSize => w.keep_size = true,
                Intent::Held(h) => {
                    w.keep_size |= matches!(h, Held::Size(_));
                    w.held.push(h);
                }
                Intent::SameLength => w.same_length = true,
                Intent::SegmentCount(n) => put!(segment_count, n, named, "part counts"),
                // A crossfade is between clips: they are joined.
                // 0: no length named yet (settled below).
                Intent::Crossfade(secs) => {
                    w.concat = true;
                    match secs {
                        Some(s) => w.crossfade = Some(s),
                        None => {
                            w.crossfade.get_or_insert(0.0);
                        }
                    }
                }
                Intent::Speech => {
                    // What speech recognition needs: named, as if with its numbers.
                    put!(sample_rate, 16000, true, "sample rates");
                    put!(channels, 1, true, "channel counts");
                }
                Intent::Reverse | Intent::ReverseSound => {
                    w.reverse = true;
                    w.reverse_picture |= matches!(intent, Intent::Reverse);
                    reorder_at.get_or_insert((clause, "reversing"));
                }
                Intent::Volume(l) => put!(volume, l, named, "volumes"),
                Intent::Rotate(d) => w.rotate = (w.rotate + d).rem_euclid(360),
                Intent::Flip {
                    horizontal: true,
                    bare,
                } => {
                    w.hflip = true;
                    bare_flip |= bare;
                }
                Intent::Flip {
                    horizontal: false, ..
                } => w.vflip = true,
                Intent::Crop(c) => {
                    crop_verb |= words
                        .split(' ')
                        .any(|x| x.starts_with("crop") || x == "cut");
                    orientation_said = !words.contains(':')
                        && words.split(' ').any(|x| {
                            matches!(x, "portrait" | "vertical" | "landscape" | "horizontal")
                        });
                    put!(crop, c, named, "crops")
                }
                // The first padding named wins: "pad to a square with black bars".
                Intent::Pad(p) => {
                    w.pad.get_or_insert(p);
                }
                Intent::Resize(r) => {
                    w.resize_dir = w.resize_dir.or(direction(words, RESIZE_WORDS));
                    put!(resize, r, named, "sizes")
                }
                Intent::ResizeAtMost(r) => {
                    w.no_upscale = true;
                    w.keep_aspect |= matches!(r, Resize::Dim(..));
                    put!(resize, r, named, "sizes");
                }
                Intent::KeepAspect => w.keep_aspect = true,
                Intent::Stretch => w.stretch = true,
                Intent::Fps(f) => {
                    w.fps_dir = w.fps_dir.or(direction(words, FPS_WORDS));
                    put!(fps, f, named, "frame rates")
                }
                Intent::FpsFactor(f) => w.fps_factor = Some(f),
                Intent::Channels(c) => put!(channels, c, named, "channel counts"),
                Intent::SampleRate(r) => put!(sample_rate, r, named, "sample rates"),
                Intent::Normalize(l) => w.normalize = Some(l),
                Intent::TruePeak(tp) => w.true_peak = Some(tp),
                Intent::EndShortest => w.end_shortest = true,
                Intent::AudioBitrate(b) => put!(abitrate, b, named, "audio bit rates"),
                Intent::VideoBitrate(b) => put!(vbitrate, b, named, "video bit rates"),
                Intent::BareBitrate(b) => {
                    w.bare_bitrate = true;
                    put!(vbitrate, b, named, "video bit rates")
                }
                Intent::TargetSize(b) => put!(target_size, b, named, "file sizes"),
                Intent::TargetFactor(f) => w.target_factor = Some(f),
                Intent::Crf(c) => put!(crf, c, named, "qualities"),
                Intent::Compress(s) => {
                    // "compress it a lot" may also match plain "compress": keep the strongest word.
                    if w.compress.is_none_or(|old| old == Strength::Normal) {
                        w.compress = Some(s)
                    }
                }
                Intent::QualityHigh => w.quality_high = true,
                Intent::Lossless => w.lossless = true,
                Intent::Reencode => w.reencode = true,
                Intent::Trim(t) => {
                    // "30 seconds long" asks for that length; "cut it down to 1 min", "max 30
                    // seconds" for at most it.
                    if matches!(t, Trim::Duration(_)) {
                        let said = |x: &str| words.split(' ').any(|y| y == x);
                        w.exact_length =
                            (said("long") || said("length") || said("lasts") || said("last"))
                                && !["max", "maximum", "under", "most", "down", "limit"]
                                    .iter()
                                    .any(|x| said(x));
                    }
                    w.trims.push(t);
                    trims_in.push(clause);
                }
                Intent::Grayscale => w.grayscale = true,
                Intent::Overlay => w.overlay = true,
                Intent::OverlaySize(s) => w.overlay_size = Some(s),
                Intent::Margin { px, border_alone } => margin = Some((px, border_alone)),
                Intent::Opacity(o) => w.opacity = Some(o),
                Intent::Concat => w.concat = true,
                Intent::Bars => bars = true,
                Intent::JoinOrder(files) => {
                    w.concat |= files.len() >= 2;
                    w.join_order = files;
                }
                Intent::Stack { horizontal } => w.stack = Some(horizontal),
                Intent::EachSize(fw, fh) => w.each_size = Some((fw, fh)),
                Intent::Combine => w.combine = true,
                Intent::ImageToVideo => w.image_to_video = true,
                Intent::Extend { at, secs, fill } => w.extends.push((at, secs, fill)),
                Intent::Repeat(n) => {
                    reorder_at.get_or_insert((clause, "a repeat"));
                    put!(repeat, n, named, "repeat counts")
                }
                Intent::LoopFor(s) => {
                    reorder_at.get_or_insert((clause, "a repeat"));
                    w.loop_for = Some(s)
                }
                Intent::LengthOfSound => w.length_of_sound = true,
                Intent::LengthOfPicture => w.length_of_picture = true,
                Intent::Qualifies(q) => qualifiers.push(q),
                Intent::NoUpscale => w.no_upscale = true,
                Intent::ForSpan { shown, overlay } => {
                    if w.overlay_span.is_some_and(|old| old != shown) {
                        w.conflicts.push("spans".into());
                    }
                    w.overlay |= overlay;
                    w.overlay_span = Some(shown)
                }
                Intent::GifLook { smooth } => {
                    w.gif_look = true;
                    w.gif_smooth |= smooth;
                }
                Intent::LoopTo(l) => {
                    if w.loop_to.is_some_and(|old| old != l) {
                        w.conflicts.push("loops".into());
                    }
                    w.loop_to = Some(l)
                }
                Intent::Subtitles { burn } => w.subtitles = Some(burn || w.subtitles == Some(true)),
                Intent::AudioCodec(c) => put!(acodec, c, named, "audio codecs"),
                Intent::VideoCodec { key, targeted } => w.vcodecs.push((key, targeted)),
                Intent::Format { key, how } => w.formats.push((key, how)),
                Intent::Corner(c) => w.corner = Some(place(w.corner.take(), c, &mut w.conflicts)),
                Intent::Color(c) => w.color = Some(c),
                Intent::At(t) => {
                    times_said.push(t);
                    w.at = Some(t)
                }
                Intent::LooseTime(t) => {
                    times_said.push(t);
                    w.loose_time = Some(t)
                }
                Intent::Split => split = true,
                Intent::PartCount(n) => part_count = Some(n),
                Intent::BlurFill => w.blur_fill = true,
                Intent::Untouched { picture: false } => w.untouched.0 = true,
                Intent::Untouched { picture: true } => w.untouched.1 = true,
                Intent::RestDiscarded => rest_discarded = true,
                Intent::RemoveSaid => remove_said = true,
                Intent::Kept { picture: false } => w.kept.0 = true,
                Intent::Kept { picture: true } => w.kept.1 = true,
                Intent::BlurRegion(bw, bh) => w.blur_region = Some((bw, bh)),
                Intent::Noop => {}
            }
        }
        // "a blurred, zoomed copy filling the space": the lone "blurred" is the fill's look,
        // not a blur of the whole picture.
        if w.blur_fill {
            let gblur = |i: &Intent| matches!(i, Intent::VideoFilter(f) if f.starts_with("gblur"));
            let blurs: Vec<&str> = u
                .heard
                .iter()
                .filter(|(i, _)| gblur(i))
                .map(|(_, said)| said.as_str())
                .collect();
            if !blurs.is_empty() && blurs.iter().all(|said| BLUR_WORDS.contains(said)) {
                w.vfilters.retain(|f| !f.starts_with("gblur"));
            }
        }
        // "for the first 5 seconds" places a watermark in time; of anything else it is a
        // change to a part of the time, which is not made (and trimming would drop the rest).
        if w.overlay_span.is_some() && !w.overlay {
            w.unsupported = Some(
                "it asks for a change to a part of the time only, which this translator does not do (only a watermark can be shown for part of the time)".into(),
            );
        }
        // The picture repeated for as long as the sound lasts: that sound is the output's.
        if w.loop_to == Some(LoopTo::Picture) && !(w.add_track || w.mix_audio || w.add_audio) {
            w.replace_audio = true;
        }
        // "compress it to half the size", "compress to 50% of the original size": beside a
        // compression, a size said without "resolution", "dimensions" or "width" is the file's
        // (it had halved the picture's width and height as well).
        if w.compress.is_some()
            && let Some((Resize::Factor(f), _)) = slots.resize
            && f < 1.0
            && u.heard.iter().any(|(i, said)| {
                matches!(i, Intent::Resize(Resize::Factor(_)))
                    && said.split(' ').any(|x| x == "size")
                    && !said.split(' ').any(|x| {
                        matches!(
                            x,
                            "resolution" | "dimensions" | "width" | "scale" | "res" | "pixels"
                        )
                    })
            })
        {
            slots.resize = None;
            w.target_factor.get_or_insert(f);
        }
        // A picture named beside a place ("logo.png en haut à droite de clip.mp4") is laid
        // over the video there: nothing else puts a named picture at a place (2026-11-28).
        if w.corner.is_some()
            && slots.crop.is_none()
            && w.blur_region.is_none()
            && w.stack.is_none()
            && !w.concat
            && u.files_in.iter().any(|(_, n)| {
                crate::media::is_picture_name(n)
                    && !u
                        .heard
                        .iter()
                        .any(|(i, _)| matches!(i, Intent::OutputName(o) if o == n))
            })
        {
            w.overlay = true;
        }
        // A distance from the edges places the watermark; without one, "a 10 px margin" is a
        // border and "10 px from the edges" names nothing it could place.
        match margin {
            Some((px, _)) if w.overlay => w.overlay_margin = px,
            Some((Some(px), true)) => {
                w.pad.get_or_insert(Pad::Border(px));
            }
            Some(_) => {
                w.unsupported = Some(
                    "a distance from the edges places a picture laid over the video, and none was named (\"put logo.png in the top right corner, 10 px from the edges\")".into(),
                )
            }
            None => {}
        }
        // The slots' values, whether named or implied.
        macro_rules! take {
            ($($slot:ident),*) => { $(w.$slot = slots.$slot.map(|(v, _)| v);)* };
        }
        take!(
            thumb,
            frames,
            speed,
            segment,
            segment_count,
            volume,
            crop,
            resize,
            fps,
            channels,
            sample_rate,
            abitrate,
            vbitrate,
            target_size,
            crf,
            repeat,
            acodec
        );
        // One frame at a named place beside several frames: "a frame every 2 seconds from 4s to
        // 8s" had answered one picture at 4 s (2026-11-28).
        // ("the last frame, 1 image" agrees: one is one.)
        if w.frames.as_ref().is_some_and(|f| *f != Frames::Count(1))
            && w.thumb.as_ref().is_some_and(|t| *t != Thumb::Default)
        {
            w.conflicts.push("how many frames to take".into());
        }
        // "reverse it and keep the first 3 seconds", "loop it 3 times and keep the first 15
        // seconds": the cut is the result's (the reversed end, the loops' first 15 s), and it
        // had been made to the input (its first 3 s reversed; 30 s of loops, the cut lost).
        if let Some((clause, what)) = reorder_at
            && trims_in.iter().any(|c| *c > clause)
        {
            let instead = match what {
                "a speed change" => "(\"keep the first 4 seconds and speed it up\")",
                _ => {
                    "(\"keep the last 3 seconds and reverse it\") or the length (\"loop it for 15 seconds\")"
                }
            };
            w.unsupported = Some(format!(
                "a cut said after {what} is a part of the result, which is not done in one step; say the part of the original {instead}"
            ));
        }
        // "a 2 second fade in at the start and fade out at the end": one length named for the
        // fades is the length of every fade that names none.
        let named: Vec<f64> = w.fades.iter().filter_map(|f| f.1).collect();
        if let [only] = named[..] {
            for fade in &mut w.fades {
                fade.1.get_or_insert(only);
            }
        }
        // "into 4 pieces, 2.5 seconds each": the time is the parts' length, not the output's.
        if w.segment_count.is_some() || w.segment.is_some() {
            if w.segment.is_none() {
                w.segment = w.loose_time;
            }
            if w.segment.is_some() {
                w.loose_time = None;
            }
        }
        // "make the logo black and white": a change said of the picture laid over the video
        // would be made to the whole video; only the overlay's size, place and opacity are set.
        if w.overlay
            && let Some(said) = u
                .heard
                .iter()
                .zip(&u.clause_of)
                .find_map(|((i, words), c)| {
                    let overlay_named = u.picture_files_in().any(|pc| pc == *c)
                        || u.heard.iter().zip(&u.clause_of).any(|((o, _), oc)| {
                            oc == c
                                && matches!(
                                    o,
                                    Intent::Overlay | Intent::ForSpan { overlay: true, .. }
                                )
                        });
                    (overlay_named && i.changes_picture()).then_some(words)
                })
        {
            w.unsupported = Some(format!(
                "it asks to change the picture laid over the video (\"{said}\"), and only its size, place and opacity can be set; the change would apply to the whole video"
            ));
        }
        // "a boring stretch between 3s and 6s, delete that section": the one span said is
        // removed, not kept; with none, or several, which one goes cannot be told.
        if remove_said {
            // "keep from 3 to 6 and remove that part": the span was said with a word that keeps
            // or cuts, so removing it contradicts, or reads it twice.
            let span_with_verb = u
                .heard
                .iter()
                .zip(&u.clause_of)
                .any(|((i, _), c)| matches!(i, Intent::Trim(_)) && u.trim_verbs_in.contains(c));
            match w.trims.as_slice() {
                [Trim::Range(..)] if span_with_verb => {
                    w.unsupported = Some(
                        "it says to keep a part and to remove \"that section\"; say \"remove from 0:03 to 0:06\" or \"keep from 0:03 to 0:06\"".into(),
                    )
                }
                [Trim::Range(a, b)] => w.trims = vec![Trim::CutRange(*a, *b)],
                [Trim::CutRange(..)] => {}
                _ => {
                    w.unsupported = Some(
                        "it says to remove a part named elsewhere (\"that section\"), and which part cannot be told; say \"remove from 0:03 to 0:06\"".into(),
                    )
                }
            }
        }
        // "from 0:03 to 0:08, the rest can go" says the trim again; beside a part removed
        // ("cut the first 3 seconds, throw away the rest") it says the opposite of it.
        if rest_discarded {
            let keeps = |t: &Trim| {
                matches!(
                    t,
                    Trim::KeepHead(_)
                        | Trim::KeepTail(_)
                        | Trim::Range(..)
                        | Trim::Start(_)
                        | Trim::End(_)
                        | Trim::Duration(_)
                )
            };
            if w.trims.is_empty() || !w.trims.iter().all(keeps) {
                w.unsupported = Some(
                    "it says to throw the rest away, and which part is kept cannot be told".into(),
                );
            }
        }
        // "speed up only the first 5 seconds", "make the last 2 seconds black and white": a
        // span said with a change and no word that keeps or cuts is that change's reach, not a
        // trim; changes to a part of the time are not made, and trimming would drop the rest.
        let scoped = u
            .heard
            .iter()
            .zip(&u.clause_of)
            .find_map(|((i, words), c)| {
                let keeps = matches!(
                    i,
                    Intent::Trim(Trim::KeepHead(_) | Trim::KeepTail(_) | Trim::Range(..))
                );
                let with_effect = u
                    .heard
                    .iter()
                    .zip(&u.clause_of)
                    .any(|((e, _), ec)| ec == c && e.is_effect());
                (keeps && with_effect && !u.trim_verbs_in.contains(c)).then_some(words)
            });
        if let Some(span) = scoped {
            w.unsupported = Some(format!(
                "it asks for a change to a part of the time only (\"{span}\"), which this translator does not do; keeping only that part would drop the rest"
            ));
        }
        // "2x faster, audio unchanged": the sound would follow the speed, against what was said.
        if w.untouched.0 && (w.touches_sound() || w.remove_audio) {
            w.unsupported =
                Some("it asks both to change the sound and to leave it as it is".into());
        }
        // "mute it completely, but make its audio twice as loud" (2026-11-29, ninth pass: it had
        // answered a silent file): a change made only to the sound, beside removing it.
        if w.remove_audio && w.changes_sound_only() {
            w.unsupported = Some("it asks both to remove the sound and to change it".into());
        }
        // "extract the audio, then mute the video", "the audio, and the video without sound":
        // the sound alone and the silent picture are two outputs; it had answered the sound
        // alone (2026-11-30, seventeenth pass).
        if w.extract_audio && w.remove_audio {
            w.unsupported = Some("the sound alone and the video without its sound are two outputs, which one task does not make; ask for each in its own request".into());
        }
        let changes_length = w.speed.is_some()
            || !w.trims.is_empty()
            || w.repeat.is_some()
            || w.loop_for.is_some()
            || w.loop_to.is_some()
            || !w.extends.is_empty()
            || w.segment.is_some()
            || w.segment_count.is_some()
            || w.exact_length;
        if w.same_length && changes_length {
            w.unsupported =
                Some("it asks both to change how long it plays and to keep its length".into());
        }
        if w.untouched.1 && (w.touches_picture() || w.extract_audio) {
            w.unsupported =
                Some("it asks both to change the picture and to leave it as it is".into());
        }
        if split || part_count.is_some() || (w.segment_count.is_some() && !times_said.is_empty()) {
            w.split_points(times_said, part_count);
        }
        if w.rotate == 0
            && let Some(d) = w.rotate_hint
        {
            // "Upside down" has one answer; "sideways" or "portrait to landscape" has two, and
            // a quarter turn the wrong way is a wrong file.
            if d == 180 && bare_flip {
                // "it's upside down, flip it": turned 180° or mirrored top to bottom; it had
                // done both and a left-right mirror (2026-11-30, sixteenth pass).
                w.unsupported = Some(FLIP_UPSIDE_DOWN.into());
            } else if d == 180 {
                w.rotate = d;
            } else {
                w.unsupported = Some(
                    "it does not say which way to turn the picture (say clockwise or counter-clockwise)"
                        .into(),
                );
            }
        }
        // "9:16, don't crop it": the shape is reached by padding; another crop contradicts.
        if w.no_crop {
            match w.crop {
                Some(Crop::Aspect(r)) => {
                    w.pad.get_or_insert(Pad::Aspect(r));
                    w.crop = None;
                }
                Some(Crop::Square) => {
                    w.pad.get_or_insert(Pad::Square);
                    w.crop = None;
                }
                Some(_) => {
                    w.unsupported =
                        Some("it asks both to crop the picture and not to crop it".into())
                }
                None => {}
            }
            // "without cropping, make it 1080x1920": a size of another shape is reached by bars
            // unless stretching is said (`plan/picture.rs`); it had been refused since it had
            // stretched (2026-11-28, eighth pass; 2026-11-30, seventeenth pass).
        }
        if w.stretch && w.keep_aspect {
            w.unsupported =
                Some("it asks both to stretch the picture and to keep its shape".into());
        }
        // Cropped to one shape and padded to another: no picture satisfies both.
        if let (Some(Crop::Aspect(a)), Some(Pad::Aspect(b))) = (&w.crop, &w.pad)
            && (a - b).abs() > 0.01
        {
            w.unsupported = Some("it asks for two different shapes of picture".into());
        }
        // "a crossfade ... with a 1 second overlap": a time with no role of its own is the
        // crossfade's length, never the output's; one second when none is named.
        if w.crossfade == Some(0.0) {
            w.crossfade = Some(match (w.loose_time, w.trims.as_slice()) {
                (Some(t), []) if t > 0.0 => {
                    w.loose_time = None;
                    t
                }
                // "a cross dissolve, about 1 second long": the length said is the dissolve's,
                // never a cut of the first clip (it had kept 1 s of it).
                (None, [Trim::Duration(t)]) if *t > 0.0 => {
                    let t = *t;
                    w.trims.clear();
                    t
                }
                _ => 1.0,
            });
        }
        // "fade in and out, 1 second each": a time with no role of its own beside fades that
        // name no length is their length, never the length of the whole output.
        if let Some(t) = w.loose_time
            && w.fades.iter().any(|f| f.1.is_none())
            && w.trims.is_empty()
        {
            for fade in &mut w.fades {
                fade.1.get_or_insert(t);
            }
            w.loose_time = None;
        }
        // "9:16 with a blurred background": a fill is padding, never a crop of the picture.
        // Bars alone: the padded frame is the size or shape named ("640x480 but letterbox it",
        // "9:16 with black bars"), else 16:9.
        if bars && w.pad.is_none() {
            w.pad = Some(match (w.resize.clone(), w.crop.clone()) {
                (Some(Resize::Dim(fw, fh)), _) => {
                    w.resize = None;
                    Pad::Dim(fw, fh)
                }
                (_, Some(Crop::Aspect(r))) => {
                    w.crop = None;
                    Pad::Aspect(r)
                }
                (_, Some(Crop::Square)) => {
                    w.crop = None;
                    Pad::Square
                }
                _ => Pad::Aspect(16.0 / 9.0),
            });
        }
        // A part of the sound muted beside a cut: its times may be the input's or the result's
        // ("cut the first 2 seconds and mute from 5 to 7" had muted the input's 7 to 9)
        // (2026-11-28).
        if !w.trims.is_empty() && w.afilters.iter().any(|f| f.starts_with("volume=enable=")) {
            w.unsupported.get_or_insert_with(|| {
                "a part of the sound muted beside a cut: whether its times are the input's or the result's cannot be told; mute in one request, cut in another".into()
            });
        }
        // A true peak is a normalisation's ceiling: alone it would be dropped.
        if w.true_peak.is_some() && w.normalize.is_none() {
            w.unsupported.get_or_insert_with(|| {
                "a true peak is the ceiling of a loudness normalisation; ask for one too (\"normalize to -16 LUFS, true peak -1.5\")".into()
            });
        }
        // Each picture's size is the result's where there is one picture ("join them, each
        // at 640x360"); beside a stack it sizes the stacked pictures (`plan/joins.rs`).
        if w.stack.is_none()
            && let Some((fw, fh)) = w.each_size.take()
        {
            match &w.resize {
                Some(r) if *r != Resize::Dim(fw, fh) => w.conflicts.push("sizes".into()),
                _ => w.resize = Some(Resize::Dim(fw, fh)),
            }
        }
        // "make it a square 1280x1280 with black bars": a shape said beside padding is the
        // padding's; a crop would cut away what the bars are there to keep (it had cropped to a
        // square, then padded) (2026-11-28).
        if w.pad.is_some() && !crop_verb && matches!(w.crop, Some(Crop::Square | Crop::Aspect(_))) {
            w.crop = None;
        }
        // "rotate it 90 degrees clockwise so it is portrait": the orientation is what the turn
        // makes (a half turn makes none), not a crop to 9:16 before it (it had cropped, then
        // turned the crop on its side) (2026-12-02). The plan checks the turn gives it.
        if w.rotate != 0
            && !crop_verb
            && orientation_said
            && w.pad.is_none()
            && let Some(Crop::Aspect(r)) = w.crop
        {
            w.orientation = Some(r < 1.0);
            w.crop = None;
        }
        if w.blur_fill && w.pad.is_none() {
            match w.crop {
                Some(Crop::Aspect(r)) => {
                    w.pad = Some(Pad::Aspect(r));
                    w.crop = None;
                }
                Some(Crop::Square) => {
                    w.pad = Some(Pad::Square);
                    w.crop = None;
                }
                _ => {}
            }
        }
        // "9:16, 1080x1920, with a blurred background" / "with black bars": the size named is
        // the padded frame's. Scaling to it first would stretch the picture into the frame
        // and leave nothing to pad (2026-11-27).
        if let Some(Resize::Dim(fw, fh)) = w.resize {
            let frame = fw as f64 / fh as f64;
            let same_shape = match w.pad {
                Some(Pad::Aspect(r)) => (r - frame).abs() < 0.01,
                Some(Pad::Square) => fw == fh,
                None => w.blur_fill,
                _ => false,
            };
            if same_shape {
                w.pad = Some(Pad::Dim(fw, fh));
                w.resize = None;
            }
        }
        // "fade in from white": a colour beside fades and no padding is the fades'.
        if w.pad.is_none() && w.fades.iter().any(|f| !f.2) && w.fade_color.is_none() {
            w.fade_color = w.color.take();
        }
        if !w.join_order.is_empty() && !w.concat && !w.combine && w.crossfade.is_none() {
            w.unsupported =
                Some("it says which clip comes first, and no join of clips was asked for".into());
        }
        for q in qualifiers {
            // A crop said with its verb and no padding leaves no bars ("to 4:3, cropping the
            // sides, no black bars"); "make it 9:16 instead of black bars" names neither.
            if matches!(q, Qualifier::NotBars) && crop_verb && w.crop.is_some() && w.pad.is_none() {
                continue;
            }
            if let Some(why) = q.unmet(&w) {
                w.unsupported = Some(why.into());
            }
        }
        w
    }

    /// "split it at 0:04 and 0:07", "0:00-0:03, 0:03-0:07 and 0:07 to the end, as separate
    /// files", "into two files at 0:04": the times said (and the parts' bounds) are the cut
    /// points, unless the parts have a length. Parts named that leave a gap, a count of parts
    /// that does not fit the times, or a split with no time at all are refused: cutting
    /// elsewhere would answer another request.
    fn split_points(&mut self, said: Vec<f64>, part_count: Option<u32>) {
        if self.segment.is_some() {
            return;
        }
        let mut points = said;
        // A part's bounds: (start, end), `None` for the end of the input.
        let mut parts = Vec::new();
        for t in &self.trims {
            let (a, b) = match *t {
                Trim::Range(a, b) => (a, Some(b)),
                Trim::Start(a) => (a, None),
                Trim::End(b) | Trim::KeepHead(b) => (0.0, Some(b)),
                _ => {
                    self.unsupported =
                        Some("it asks both to split the input and to cut part of it away".into());
                    return;
                }
            };
            points.push(a);
            points.extend(b);
            parts.push((a, b));
        }
        points.retain(|t| *t > 0.0);
        points.sort_by(f64::total_cmp);
        points.dedup_by(|a, b| (*a - *b).abs() < 0.001);
        let count = part_count.or(self.segment_count);
        if points.is_empty() {
            if self.segment_count.is_none() {
                self.unsupported = Some("it asks for a split but not where to cut".into());
            }
            return;
        }
        if count.is_some_and(|n| n as usize != points.len() + 1) {
            self.unsupported = Some(format!(
                "it asks for {} parts but names {} cut {}",
                count.unwrap_or(0),
                points.len(),
                if points.len() == 1 { "point" } else { "points" }
            ));
            return;
        }
        // Parts named by their bounds must be the parts the cuts make, none left out.
        let bounds: Vec<Option<f64>> = std::iter::once(Some(0.0))
            .chain(points.iter().map(|p| Some(*p)))
            .chain(std::iter::once(None))
            .collect();
        let same = |x: Option<f64>, y: Option<f64>| match (x, y) {
            (Some(x), Some(y)) => (x - y).abs() < 0.001,
            (None, None) => true,
            _ => false,
        };
        if !parts.is_empty()
            && !bounds.windows(2).all(|w| {
                parts
                    .iter()
                    .any(|(a, b)| same(Some(*a), w[0]) && same(*b, w[1]))
            })
        {
            self.unsupported =
                Some("the parts it names leave part of the input out of every file".into());
            return;
        }
        if self.thumb.is_some() || self.frames.is_some() {
            self.unsupported = Some(
                "a split makes several files of one kind: ask for the pictures on their own".into(),
            );
            return;
        }
        self.split_at = points;
        self.segment_count = None;
        self.trims.clear();
        self.at = None;
        self.loose_time = None;
    }

    /// Whether the picture itself changes (so video cannot be stream-copied).
    pub fn touches_picture(&self) -> bool {
        // Parts cut at exact times need key frames there: the picture is encoded.
        self.segment.is_some()
            || self.segment_count.is_some()
            || !self.split_at.is_empty()
            || !self.extends.is_empty()
            || self.subtitles == Some(true)
            || self.crop.is_some()
            || self.pad.is_some()
            || self.resize.is_some()
            || self.rotate != 0
            || self.hflip
            || self.vflip
            || self.grayscale
            || self.denoise
            || self.blur_region.is_some()
            || !self.vfilters.is_empty()
            || self.fps.is_some()
            || self.fps_factor.is_some()
            || self.speed.is_some()
            || self.reverse_picture
            || self.fades.iter().any(|(_, _, audio_only)| !audio_only)
    }

    /// Changes only a picture can take (speed and fades apply to either kind).
    pub fn picture_only(&self) -> bool {
        self.crop.is_some()
            || self.pad.is_some()
            || self.resize.is_some()
            || self.rotate != 0
            || self.hflip
            || self.vflip
            || self.grayscale
            || self.blur_region.is_some()
            || !self.vfilters.is_empty()
            || self.fps.is_some()
            || self.fps_factor.is_some()
    }

    /// Changes only sound can take.
    pub fn sound_only(&self) -> bool {
        !self.afilters.is_empty()
            || self.volume.is_some()
            || self.normalize.is_some()
            || self.channels.is_some()
            || self.sample_rate.is_some()
            || self.abitrate.is_some()
            || (self.reverse && !self.reverse_picture)
            || self.fades.iter().any(|(_, _, audio_only)| *audio_only)
    }

    /// Whether the sound itself changes (so audio cannot be stream-copied).
    pub fn touches_sound(&self) -> bool {
        self.changes_sound_only()
            || !self.extends.is_empty()
            || self.speed.is_some()
            || self.reverse
            || !self.fades.is_empty()
    }

    /// Changes made to the sound alone: a speed, a reverse, a fade or added time are said of
    /// the picture too.
    fn changes_sound_only(&self) -> bool {
        !self.afilters.is_empty()
            || self.volume.is_some()
            || self.normalize.is_some()
            || self.channels.is_some()
            || self.sample_rate.is_some()
            || self.abitrate.is_some()
    }
}
