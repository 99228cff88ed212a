//! What a task instruction asks for: the intents built from the rules of
//! `grammar/task.txt` and the values they captured.

use std::sync::OnceLock;

use crate::grammar::{self, Grammar, Rule};
use crate::numbers::{STANDARD_HEIGHTS, Value};
use crate::pattern::{Cap, Capture};
use crate::tokens::{Tok, Token, tokenize};

const TASK_TXT: &str = include_str!("../grammar/task.txt");

pub fn task_grammar() -> &'static Grammar {
    static G: OnceLock<Grammar> = OnceLock::new();
    G.get_or_init(|| Grammar::parse(TASK_TXT).unwrap_or_else(|e| panic!("task.txt: {e}")))
}

#[derive(Clone, Debug, PartialEq)]
pub enum Trim {
    KeepHead(f64),
    CutHead(f64),
    KeepTail(f64),
    CutTail(f64),
    /// Seconds off the start and off the end.
    CutEnds(f64, f64),
    Range(f64, f64),
    CutRange(f64, f64),
    Start(f64),
    End(f64),
    Duration(f64),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Thumb {
    At(f64),
    First,
    Last,
    Middle,
    /// A frame by its number, counted from 0 ("frame number 120").
    Frame(u32),
    /// No time given: the plan picks one.
    Default,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Frames {
    Every(f64),
    Rate(f64),
    Nth(u32),
    Count(u32),
    All,
    Head(u32),
    Tile(u32, u32),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Resize {
    /// The shorter side ("720p"): the height of a landscape picture.
    Short(u32),
    Width(u32),
    Height(u32),
    Dim(u32, u32),
    Factor(f64),
}

/// A property said as the input's and kept ("keep it at 1080p").
#[derive(Clone, Debug, PartialEq)]
pub enum Held {
    Size(Resize),
    Fps(f64),
    /// `true`: portrait (taller than wide).
    Portrait(bool),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Crop {
    Square,
    /// Width over height.
    Aspect(f64),
    Dim(u32, u32),
    /// Pixels off every edge.
    Edges(u32),
    /// Keep this fraction of each dimension, centred.
    Keep(f64),
    Side(String, u32),
    Half(String),
    /// An amount off several sides ("80 px off the top and bottom", "10% from every edge").
    Sides(Sides, Amount),
}

/// How much a crop takes off each named side.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Amount {
    Px(u32),
    /// A share of the side's dimension (0.1: 10% of the width off the left).
    Share(f64),
}

/// Which sides a crop takes from: top, bottom, left, right.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sides {
    pub top: bool,
    pub bottom: bool,
    pub left: bool,
    pub right: bool,
}

impl Sides {
    /// From a `$sides` key of the lexicon: letters t, b, l, r, or "all".
    pub fn from_key(key: &str) -> Sides {
        let all = key == "all";
        Sides {
            top: all || key.contains('t'),
            bottom: all || key.contains('b'),
            left: all || key.contains('l'),
            right: all || key.contains('r'),
        }
    }
}

/// Where added time goes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum End {
    Start,
    End,
}

/// What fills added time: silence under the held first/last frame, or frames of a colour.
#[derive(Clone, Debug, PartialEq)]
pub enum Fill {
    /// The picture holds still (first or last frame); the sound is silent.
    Hold,
    Color(String),
}

/// What a `Qualifies` intent says of the rest of the request.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Qualifier {
    /// "..., not longer": the length just named is a limit.
    NotLonger,
    /// "instead of black bars": what a blurred fill replaces.
    NotBars,
    /// "this size": the size named elsewhere in the request.
    ThatSize,
    /// "so there isn't a hard cut": what a crossfade does.
    SoftJoin,
    /// "after that the video should be clean": what a watermark's span says of the rest.
    RestClean,
    /// "crop the left and right" ("the top and bottom"): how a crop to a narrower (wider)
    /// shape is made; `true` for the sides.
    CropSides(bool),
    /// "sound fading too": what a fade of the picture does here anyway.
    SoundFadesToo,
}

/// Which input repeats until the other ends: the added sound under the picture, or the
/// picture under the sound.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LoopTo {
    Sound,
    Picture,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Pad {
    Aspect(f64),
    Dim(u32, u32),
    Square,
    Border(u32),
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FadeKind {
    In,
    Out,
    Both,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Level {
    Factor(f64),
    Db(f64),
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Strength {
    Light,
    Normal,
    Strong,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FormatHow {
    /// "to webm", "as mp3": the output format.
    Target,
    /// "from mp4": the input's format.
    Source,
    /// Named without a preposition: the output unless it names an input.
    Mention,
    /// "for iPhone", "for WhatsApp": a format that plays there, unless another is named.
    Compatible,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Intent {
    Unsupported(String),
    /// A named job of the host's recipe plugin (`src/recipes.rs`).
    Recipe(String),
    /// What a named job gives, said beside it: a streaming package's playlist, segments and
    /// qualities (`streaming`), the times an analysis lists (`analysis`). Refused without
    /// that job (`recipes::setting`).
    JobPart(String),
    OutputName(String),
    Thumb(Thumb),
    Frames(Frames),
    /// A bit rate said with neither "audio" nor "video", at a rate sounds are coded at
    /// (at most 320k): the sound's where the output is only sound, else not told.
    BareBitrate(u32),
    /// The result ends with the shorter of two inputs played together.
    EndShortest,
    /// The true peak a loudness normalisation keeps under, in dBTP.
    TruePeak(f64),
    /// The size of each input's picture ("side by side, each 640x360").
    EachSize(u32, u32),
    Fade {
        kind: FadeKind,
        secs: Option<f64>,
        audio_only: bool,
    },
    AudioFilter(String),
    VideoFilter(String),
    Denoise,
    ReplaceAudio,
    AddTrack,
    MixAudio,
    /// Audio from a second input: mixed in if the video has sound, else used as its sound.
    AddAudio,
    ExtractAudio,
    RemoveAudio,
    Speed(f64),
    /// Many times faster, without sound (a timelapse has none).
    Timelapse,
    /// Sound for speech recognition: 16 kHz mono.
    Speech,
    /// Cut into parts of this many seconds, each its own file.
    Segment(f64),
    /// Cut into parts, each its own file, at the times said beside it ("split it at 0:04 and
    /// 0:07"; `wants.rs` gathers them).
    Split,
    /// "into 3 files": how many parts a split makes (checked against its times).
    PartCount(u32),
    /// A subtitle file written in this format (`srt`, `vtt`, `ass`): converted, or taken out
    /// of a video.
    SubtitleFormat(String),
    /// "without re-encoding": the streams are copied, or the request is refused.
    NoReencode,
    /// "don't change the resolution": the picture keeps its size.
    KeepSize,
    /// "max 720p", "no wider than 640": a size never exceeded, so never one to enlarge to (a
    /// 320x240 input had been made 960x720); within a box the picture keeps its shape.
    ResizeAtMost(Resize),
    /// "keep it at 1080p", "keep it at 60fps", "keep it vertical": what the input is said to
    /// have, kept; what it does not have is refused, not made (`plan::checks::held`).
    Held(Held),
    /// "same length as before": nothing may change how long it plays (`wants.rs`).
    SameLength,
    /// Cut into this many parts of equal length.
    SegmentCount(u32),
    /// Clips joined with the end of one fading into the start of the next, over this long.
    Crossfade(Option<f64>),
    /// Padding filled with the picture blurred ("a blurred background").
    BlurFill,
    /// "the audio unchanged", "don't touch the picture": that stream is left as it is, so a
    /// change to it contradicts the request (`wants.rs`).
    Untouched {
        picture: bool,
    },
    /// "the rest can go", "throw away everything before that": what a kept span leaves out,
    /// said again (checked against the trims in `wants.rs`).
    RestDiscarded,
    /// "delete that section": the one span said elsewhere is what goes (2026-11-29).
    RemoveSaid,
    /// "but keep the video", "keep the sound": that stream must be in the output.
    Kept {
        picture: bool,
    },
    /// An area of this size blurred, at the corner or side said ("blur a 300x200 area in the
    /// top left corner"); the rest of the picture kept sharp.
    BlurRegion(u32, u32),
    Reverse,
    /// The sound alone reversed, the picture left as it is ("reverse only the audio").
    ReverseSound,
    Volume(Level),
    /// Degrees clockwise.
    Rotate(i32),
    /// A rotation implied by a description ("upside down", "sideways"): used only when no
    /// rotation is named, never added to one ("it's upside down, rotate it 180°" is 180°).
    RotateHint(i32),
    /// "don't crop it": an aspect ratio is reached by padding; a crop is refused.
    NoCrop,
    Flip {
        horizontal: bool,
        /// "flip it" with no way said: beside "it's upside down" it may mean a turn
        /// (`wants.rs`), so the grammar marks it (`flip h bare`).
        bare: bool,
    },
    Crop(Crop),
    Pad(Pad),
    Fps(f64),
    FpsFactor(f64),
    Channels(u32),
    SampleRate(u32),
    Normalize(Option<f64>),
    AudioBitrate(u32),
    VideoBitrate(u32),
    Resize(Resize),
    TargetSize(f64),
    /// Output size as a fraction of the input's.
    TargetFactor(f64),
    Crf(u32),
    Compress(Strength),
    QualityHigh,
    Lossless,
    Reencode,
    Trim(Trim),
    Grayscale,
    Overlay,
    OverlaySize(f64),
    /// A distance from the edges: a watermark's (`px` or its usual one), else, where
    /// `border_alone` ("a 10 px margin"), a border of `px` around the picture.
    Margin {
        px: Option<u32>,
        border_alone: bool,
    },
    Opacity(f64),
    Concat,
    /// Files in the order they are joined: "stick b.mp4 on the end of a.mp4" (a, b; a join
    /// itself), "a.mp4 first" (an order of the join asked elsewhere).
    JoinOrder(Vec<String>),
    /// Bars (letterbox, pillarbox) with no frame named: the size named elsewhere, else 16:9.
    Bars,
    Stack {
        horizontal: bool,
    },
    /// "merge", "combine": concat, overlay or new audio depending on the inputs.
    Combine,
    ImageToVideo,
    /// Time added before or after ("append 3 s of silence", "a second of black first").
    Extend {
        at: End,
        secs: f64,
        fill: Fill,
    },
    /// Played this many times in all ("repeat it 4 times", "play it twice").
    Repeat(u32),
    /// Played over and over for this long ("loop it for 30 seconds").
    LoopFor(f64),
    /// One input repeated for as long as the other lasts.
    LoopTo(LoopTo),
    /// "as long as the song": what a picture looped to the sound's length (or a still made
    /// into a video with it) gives; refused where nothing else does.
    LengthOfSound,
    /// "as long as the video": the result ends with the picture's input.
    LengthOfPicture,
    /// Words that only say something of what else is asked ("not longer", "instead of black
    /// bars"): accounted for where that is asked, refused where it is not (`wants.rs`).
    Qualifies(Qualifier),
    /// "don't upscale": a size asked for applies only if it is smaller than the picture's.
    NoUpscale,
    /// "for the first 5 seconds", "from 2s to 4s" said of a watermark; `overlay` when the
    /// watermark's own word was part of it ("the logo from 2s to 4s").
    ForSpan {
        shown: Shown,
        overlay: bool,
    },
    /// How a GIF should look: `smooth` (a higher frame rate), or what every GIF here does (its
    /// own palette, looping).
    GifLook {
        smooth: bool,
    },
    /// A subtitle input burnt into the picture, or added as a track.
    Subtitles {
        burn: bool,
    },
    AudioCodec(String),
    VideoCodec {
        key: String,
        targeted: bool,
    },
    Format {
        key: String,
        how: FormatHow,
    },
    Corner(String),
    Color(String),
    At(f64),
    LooseTime(f64),
    KeepAspect,
    /// "stretch it to 200x200": a size of another shape reached by squashing the picture.
    Stretch,
    Noop,
}

impl Intent {
    /// Whether the intent asks for something by itself; modifiers ("top right", "small",
    /// "at 5s") only shape other intents.
    /// Whether it is a change that could be meant for a part of the time only ("speed up the
    /// first 5 seconds", "make the last 2 seconds black and white").
    pub fn is_effect(&self) -> bool {
        matches!(
            self,
            Intent::Speed(_)
                | Intent::Timelapse
                | Intent::Reverse
                | Intent::ReverseSound
                | Intent::Volume(_)
                | Intent::AudioFilter(_)
                | Intent::Grayscale
                | Intent::VideoFilter(_)
                | Intent::Denoise
                | Intent::Rotate(_)
                | Intent::Flip { .. }
                | Intent::BlurRegion(..)
        )
    }

    /// Whether it changes the whole picture (its look, size, shape or orientation).
    pub fn changes_picture(&self) -> bool {
        matches!(
            self,
            Intent::Grayscale
                | Intent::VideoFilter(_)
                | Intent::Denoise
                | Intent::Rotate(_)
                | Intent::RotateHint(_)
                | Intent::Flip { .. }
                | Intent::Resize(_)
                | Intent::Crop(_)
                | Intent::Pad(_)
                | Intent::Compress(_)
                | Intent::BlurFill
                | Intent::BlurRegion(..)
        )
    }

    pub fn is_action(&self) -> bool {
        !matches!(
            self,
            Intent::Corner(_)
                | Intent::Color(_)
                | Intent::At(_)
                | Intent::LooseTime(_)
                | Intent::OverlaySize(_)
                | Intent::Margin {
                    border_alone: false,
                    ..
                }
                | Intent::Opacity(_)
                | Intent::LengthOfSound
                | Intent::LengthOfPicture
                | Intent::Qualifies(_)
                | Intent::NoUpscale
                | Intent::ForSpan { overlay: false, .. }
                | Intent::GifLook { .. }
                | Intent::Noop
                | Intent::BlurFill
                | Intent::KeepAspect
                | Intent::Stretch
                | Intent::SameLength
                | Intent::Format {
                    how: FormatHow::Source,
                    ..
                }
        )
    }
}

/// When a watermark is shown, said in seconds of the result.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Shown {
    /// "for the first 5 seconds".
    First(f64),
    /// "for the last 3 seconds": counted back from an end that must be known.
    Last(f64),
    /// "after 5 seconds", "from 5 s on".
    From(f64),
    /// "from 2 s to 4 s".
    Between(f64, f64),
}

/// An instruction, understood: intents in the order they were written, with the words each
/// came from, and the meaningful words no rule used.
#[derive(Debug)]
pub struct Understanding {
    pub heard: Vec<(Intent, String)>,
    pub leftovers: Vec<String>,
    /// Words that change the meaning ("except", "add") and that no rule used.
    pub dropped: Vec<String>,
    /// Clauses no rule understood a word of (`grammar::unaccounted_clauses`).
    pub unaccounted: Vec<String>,
    /// Words the grammar does not know at all, unused (`grammar::unknown_words`).
    pub unknown: Vec<String>,
    /// Numbers no rule used (`grammar::loose_values`).
    pub loose: Vec<(String, Option<f64>)>,
    /// The clause (between separators and `@barrier` words) each of `heard` was said in.
    pub clause_of: Vec<usize>,
    /// The files named in the instruction, each with its clause.
    pub files_in: Vec<(usize, String)>,
    /// Clauses holding a word that keeps or cuts a part ("keep", "trim", "cut"): a span said
    /// there is a trim, not the reach of a change (`Wants::from`).
    pub trim_verbs_in: Vec<usize>,
}

impl Understanding {
    /// Clauses that name a picture file ("logo.png").
    pub fn picture_files_in(&self) -> impl Iterator<Item = usize> + '_ {
        self.files_in
            .iter()
            .filter(|(_, f)| crate::media::is_picture_name(f))
            .map(|(c, _)| *c)
    }
}

impl Understanding {
    pub fn intents(&self) -> impl Iterator<Item = &Intent> {
        self.heard.iter().map(|(i, _)| i)
    }

    pub fn has(&self, f: impl Fn(&Intent) -> bool) -> bool {
        self.intents().any(f)
    }

    /// The phrases that were understood, quoted, for messages.
    pub fn understood(&self) -> Vec<String> {
        self.heard
            .iter()
            .filter(|(i, _)| *i != Intent::Noop)
            .map(|(_, w)| format!("\"{w}\""))
            .collect()
    }
}

/// Words that keep or cut a part of the input.
const TRIM_VERBS: &[&str] = &[
    "keep", "keeping", "trim", "cut", "extract", "take", "grab", "clip", "snip", "save", "export",
];

pub fn understand(instruction: &str) -> Understanding {
    let tokens: Vec<Token> = tokenize(instruction);
    let mut hits = task_grammar().run(&tokens, |rule, caps| build(rule, caps).ok().flatten());
    set_aside(&tokens, &mut hits);
    // "it's too quiet", "the voice has an echo", "the video is blurry": a change word said of
    // the file after "is"/"has"/"looks" describes it, it does not ask for that change (done, it
    // would make it quieter, add an echo, blur it). Refused as such (2026-11-27, fourth pass).
    // Beside a change of the same kind asked for ("it's too quiet, make it louder") it is context.
    let described: Vec<bool> = hits
        .iter()
        .map(|h| describes(&h.value) && grammar::described(&tokens, h.start))
        .collect();
    // "my phone recorded it at 4k", "someone muted it": a change said of what someone did.
    let narrated: Vec<bool> = hits
        .iter()
        .map(|h| {
            h.value.is_action()
                && !matches!(h.value, Intent::Format { .. } | Intent::Unsupported(_))
                && crate::statements::narrated(&tokens, h.start)
        })
        .collect();
    let described: Vec<bool> = described
        .iter()
        .zip(&narrated)
        .map(|(d, n)| *d || *n)
        .collect();
    let asked: Vec<std::mem::Discriminant<Intent>> = hits
        .iter()
        .zip(&described)
        .filter(|(_, d)| !**d)
        .map(|(h, _)| same_result(&h.value))
        .collect();
    for (k, (h, d)) in hits.iter_mut().zip(described).enumerate() {
        if d && asked.contains(&same_result(&h.value)) {
            h.value = Intent::Noop;
        } else if d && narrated[k] {
            let words = grammar::words_of(&tokens, h);
            h.value = Intent::Unsupported(format!(
                "\"{words}\" tells what was done to the file, not what to do with it; say the change you want (for instance \"make it 720p\", \"remove the sound\")"
            ));
        } else if d {
            let words = grammar::words_of(&tokens, h);
            h.value = Intent::Unsupported(format!(
                "\"{words}\" says what the file is like, not what to do with it; say the change you want (for instance \"make it louder\", \"rotate it 90 degrees clockwise\")"
            ));
        }
    }
    forbidden_changes(&tokens, &mut hits);
    // "our little church", "a small gardening podcast": a logo's size where nothing is placed,
    // in a clause that asks for no change, describes something else (2026-12-03). Beside a
    // change ("convert it to a small mp4") it stays, and is refused as not placing anything.
    if !hits.iter().any(|h| matches!(h.value, Intent::Overlay)) {
        let clause = grammar::clause_numbers(&tokens);
        let asked_in: Vec<usize> = hits
            .iter()
            .filter(|h| h.value.is_action())
            .filter_map(|h| h.used.first().map(|&i| clause[i]))
            .collect();
        hits.retain(|h| {
            !matches!(h.value, Intent::OverlaySize(_))
                || h.used
                    .first()
                    .is_some_and(|&i| asked_in.contains(&clause[i]))
        });
    }
    // A clause that only gives context is accounted for as such (`grammar::context_clauses`).
    // Beside a change that makes the file smaller, "heavy", "pesa mucho" say why.
    let shrinks = hits.iter().any(|h| {
        matches!(
            h.value,
            Intent::Compress(_)
                | Intent::TargetSize(_)
                | Intent::TargetFactor(_)
                | Intent::Crf(_)
                | Intent::VideoBitrate(_)
                | Intent::Resize(_)
        )
    });
    let context: Vec<grammar::Hit<Intent>> = grammar::context_clauses(&tokens, &hits, shrinks)
        .into_iter()
        .map(|used| grammar::Hit {
            value: Intent::Noop,
            start: used[0],
            used,
        })
        .collect();
    hits.extend(context);
    // "1080x1920 (9:16)", "640x480, 4:3": a ratio beside a size it is the shape of restates it
    // (2026-12-03).
    let sizes: Vec<(u32, u32)> = hits.iter().filter_map(|h| said_size(&h.value)).collect();
    let restated_shapes: Vec<grammar::Hit<Intent>> = tokens
        .iter()
        .enumerate()
        .filter(|(i, t)| {
            let Tok::Value(Value::Clock(parts)) = &t.kind else {
                return false;
            };
            let [a, b] = parts[..] else { return false };
            !hits.iter().any(|h| h.used.contains(i))
                && b > 0.0
                && sizes
                    .iter()
                    .any(|&(w, h)| h > 0 && (f64::from(w) / f64::from(h) - a / b).abs() < 0.01)
        })
        .map(|(i, _)| grammar::Hit {
            value: Intent::Noop,
            start: i,
            used: vec![i],
        })
        .collect();
    hits.extend(restated_shapes);
    // "gleiche Größe und Länge", "same size and length": the length kept beside the size.
    let length_too: Vec<grammar::Hit<Intent>> = (2..tokens.len())
        .filter(|&i| {
            ["length", "duration", "runtime"].contains(&tokens[i].norm.as_str())
                && tokens[i - 1].norm == "and"
                && !hits
                    .iter()
                    .any(|h| h.used.contains(&i) || h.used.contains(&(i - 1)))
                && hits
                    .iter()
                    .any(|h| h.value == Intent::KeepSize && h.used.last() == Some(&(i - 2)))
        })
        .map(|i| grammar::Hit {
            value: Intent::SameLength,
            start: i - 1,
            used: vec![i - 1, i],
        })
        .collect();
    hits.extend(length_too);
    hits.sort_by_key(|h| h.start);
    let leftovers = grammar::leftovers(&tokens, &hits);
    let mut dropped = grammar::dropped_meaning(&tokens, &hits, Intent::is_action);
    // A place no rule used beside something placed ("put logo.png at the bottom, to the right"
    // had read "right" alone and put the logo halfway down): where it goes would be a guess.
    if hits.iter().any(|h| {
        matches!(
            h.value,
            Intent::Overlay | Intent::Corner(_) | Intent::BlurRegion(..)
        )
    }) {
        let used: std::collections::HashSet<usize> =
            hits.iter().flat_map(|h| h.used.iter().copied()).collect();
        dropped.extend(
            tokens
                .iter()
                .enumerate()
                .filter(|(i, t)| {
                    t.kind == Tok::Word && !used.contains(i) && PLACES.contains(&t.norm.as_str())
                })
                .map(|(_, t)| t.norm.clone()),
        );
    }
    // "remove the echo", "remove the black bars": a verb of removing no rule used, in a clause
    // whose change adds something, asks the opposite of it (an echo had been added, bars
    // padded) (2026-11-29).
    let clause = grammar::clause_numbers(&tokens);
    {
        let lex = crate::lexicon::lexicon();
        let used: std::collections::HashSet<usize> =
            hits.iter().flat_map(|h| h.used.iter().copied()).collect();
        let adding_in: Vec<usize> = hits
            .iter()
            .filter(|h| {
                matches!(
                    h.value,
                    Intent::AudioFilter(_)
                        | Intent::VideoFilter(_)
                        | Intent::Bars
                        | Intent::Pad(_)
                        | Intent::Overlay
                        | Intent::Fade { .. }
                        | Intent::Subtitles { .. }
                        | Intent::AddAudio
                        | Intent::MixAudio
                        | Intent::AddTrack
                        | Intent::Margin { .. }
                )
            })
            .filter_map(|h| h.used.first().map(|&i| clause[i]))
            .collect();
        for (i, t) in tokens.iter().enumerate() {
            if t.kind == Tok::Word
                && !used.contains(&i)
                && lex.has("remove", &t.norm)
                && adding_in.contains(&clause[i])
                && !dropped.contains(&t.norm)
            {
                dropped.push(t.norm.clone());
            }
        }
    }
    let negated = crate::statements::negated_statements(&tokens, &hits, |i: &Intent| {
        i.is_action()
            && !matches!(
                i,
                Intent::Format {
                    how: FormatHow::Compatible,
                    ..
                }
            )
    });
    for word in negated.words {
        if !dropped.contains(&word) {
            dropped.push(word);
        }
    }
    for k in negated.not_wanted {
        hits[k].value = Intent::Noop;
    }
    let unaccounted = grammar::unaccounted_clauses(&tokens, &hits);
    // Words the grammar does not know, in any language: another language's function words
    // (articles, pronouns, politeness) are `@filler` in languages.txt, so an unknown word left
    // in an understood clause ("quítale los primeros 3 segundos": the verb) refuses rather
    // than letting the rest run with a guessed meaning.
    let unknown = grammar::unknown_words(&tokens, &hits);
    let loose = grammar::loose_values(&tokens, &hits);
    let heard = hits
        .iter()
        .map(|h| (h.value.clone(), grammar::words_of(&tokens, h)))
        .collect();
    let clause_of = hits
        .iter()
        .map(|h| h.used.first().map_or(0, |&i| clause[i]))
        .collect();
    let files_in = tokens
        .iter()
        .enumerate()
        .filter(|(_, t)| t.kind == Tok::File)
        .map(|(i, t)| (clause[i], t.norm.clone()))
        .collect();
    let trim_verbs_in = tokens
        .iter()
        .enumerate()
        .filter(|(_, t)| t.kind == Tok::Word && TRIM_VERBS.contains(&t.norm.as_str()))
        .map(|(i, _)| clause[i])
        .collect();
    Understanding {
        heard,
        leftovers,
        dropped,
        unaccounted,
        unknown,
        loose,
        clause_of,
        files_in,
        trim_verbs_in,
    }
}

/// Words of a place in the picture (`$side` in lexicon.txt).
const PLACES: &[&str] = &["top", "bottom", "left", "right", "upper", "lower"];

/// Changes said right after a free "not", "don't", "without" ("not slow motion", "sin bajar
/// la resolución", "don't rotate it") are what the answer must not do, not what it does
/// (2026-11-28, eighth pass): a resize becomes "keep the size", a removal of the sound "keep
/// the sound", a crop "don't crop", anything else nothing; the same change asked elsewhere
/// ("not 2x, 4x faster") is refused as asked both ways. "Not just", "not only" ("not only
/// rotate it but flip it") say more is wanted, not less: left to the refusal of a negation
/// not understood (`grammar::dropped_meaning`), as is "except", "instead of", "other than".
fn forbidden_changes(tokens: &[Token], hits: &mut [grammar::Hit<Intent>]) {
    let instead = |words: &[usize]| words.iter().any(|&i| tokens[i].norm == "instead");
    let before: Vec<Option<Vec<usize>>> = hits
        .iter()
        .map(|h| {
            h.value
                .is_action()
                .then(|| grammar::prohibited(tokens, hits, h.start))
                .flatten()
        })
        .collect();
    let asked: Vec<Intent> = hits
        .iter()
        .zip(&before)
        .filter(|(h, n)| n.is_none() && h.value.is_action())
        .map(|(h, _)| h.value.clone())
        .collect();
    let same_kind = |i: &Intent| asked.iter().any(|a| kind_of_change(a) == kind_of_change(i));
    // "720p, not 1080p", "to webm instead of mp4", "speed it up, don't slow it down": another
    // value of the same change asked elsewhere, so the one after the "not" names what it replaces.
    let replaced = |i: &Intent| same_kind(i) && !asked.contains(i);
    // Any change can be named as what another of its kind replaces; otherwise only those a
    // "not" can keep from happening.
    let negated: Vec<Option<Vec<usize>>> = hits
        .iter()
        .zip(before)
        .map(|(h, n)| n.filter(|w| forbiddable(&h.value) || (instead(w) && same_kind(&h.value))))
        .collect();
    if negated.iter().all(Option::is_none) {
        return;
    }
    for (h, n) in hits.iter_mut().zip(negated) {
        let Some(words) = n else { continue };
        let said = grammar::words_of(tokens, h);
        let no = !instead(&words)
            && words.last().is_some_and(|&i| {
                tokens[i].norm == "no" && tokens.get(i + 1).is_none_or(|t| t.norm != "need")
            });
        if replaced(&h.value) && !no {
            h.value = Intent::Noop;
            h.used.extend(words);
            h.used.sort_unstable();
            h.start = h.used[0];
            continue;
        }
        // "no slow motion": English forbids it, Portuguese "no" is "in the" ("no modo câmera
        // lenta" asks for it): refused rather than read either way.
        h.value = if no {
            Intent::Unsupported(format!(
                "\"no {said}\" can forbid it or (in Portuguese) ask for it; say \"don't\" or \"without\" to forbid it"
            ))
        } else if same_kind(&h.value)
            // "reverse it but don't reverse the audio": the sound's reverse is part of the one
            // asked.
            || (h.value == Intent::ReverseSound && asked.contains(&Intent::Reverse))
        {
            Intent::Unsupported(format!(
                "\"{said}\" is asked for and, after a \"not\", against: say it once"
            ))
        } else {
            match h.value {
                Intent::Resize(_) => Intent::KeepSize,
                Intent::RemoveAudio => Intent::Kept { picture: false },
                Intent::Crop(_) => Intent::NoCrop,
                _ => Intent::Noop,
            }
        };
        h.used.extend(words);
        h.used.sort_unstable();
        h.start = h.used[0];
    }
}

/// Changes offered and set aside (2026-12-03): before a "but" whose clause asks for something
/// "just" or "only" ("I was thinking of making it black and white, but let's just convert it",
/// "I know you could speed it up, but please only convert it", "my friend wants it reversed but
/// I just need it as mp4"), or said for later ("maybe later I'll make it a gif, for now convert
/// it"). Each had been done. Refused, unless the same change is asked where it counts; "make it
/// 720p, but just the first 10 seconds" asks nothing after its "but", and is read as before.
fn set_aside(tokens: &[Token], hits: &mut [grammar::Hit<Intent>]) {
    let lex = crate::lexicon::lexicon();
    let clause = grammar::clause_numbers(tokens);
    let used = |i: usize| hits.iter().any(|h| h.used.contains(&i));
    let free_in = |c: usize, class: &str| {
        (0..tokens.len()).any(|i| clause[i] == c && !used(i) && lex.has(class, &tokens[i].norm))
    };
    // The first "but" whose clause asks for something only, after a clause led by its subject
    // (not an imperative: "make it 720p, but just keep the first 10 seconds" qualifies it): what
    // that clause says is set aside, from where it starts.
    let but: Option<(usize, usize)> = (0..tokens.len()).find_map(|b| {
        if tokens[b].norm != "but"
            || used(b)
            || !free_in(clause[b], "merely")
            || !free_in(clause[b], "asks")
        {
            return None;
        }
        let before = (0..b).rev().find(|&i| tokens[i].kind != Tok::Sep)?;
        // Back to a separator or a barrier no rule used ("black and white" is one phrase).
        let mut from = before;
        while from > 0
            && tokens[from - 1].kind != Tok::Sep
            && (used(from - 1) || !lex.has("barrier", &tokens[from - 1].norm))
        {
            from -= 1;
        }
        let lead = (from..=before).find(|&i| !lex.has("lead", &tokens[i].norm))?;
        (lex.has("subject", &tokens[lead].norm) || lex.has("agent", &tokens[lead].norm))
            .then_some((from, b))
    });
    const LATER: &[&str] = &["later", "eventually", "someday"];
    let later: Vec<usize> = (0..tokens.len())
        .filter(|&i| LATER.contains(&tokens[i].norm.as_str()) && !used(i))
        .map(|i| clause[i])
        .collect();
    let aside = |h: &grammar::Hit<Intent>| {
        let Some(&first) = h.used.first() else {
            return false;
        };
        h.value.is_action()
            && (but.is_some_and(|(from, b)| (from..b).contains(&first))
                || later.contains(&clause[first]))
    };
    let kept: Vec<std::mem::Discriminant<Intent>> = hits
        .iter()
        .filter(|h| h.value.is_action() && !aside(h))
        .map(|h| same_result(&h.value))
        .collect();
    let marked: Vec<bool> = hits.iter().map(aside).collect();
    for (h, a) in hits.iter_mut().zip(marked) {
        if !a {
            continue;
        }
        if kept.contains(&same_result(&h.value)) {
            h.value = Intent::Noop;
        } else {
            let words = grammar::words_of(tokens, h);
            h.value = Intent::Unsupported(format!(
                "\"{words}\" is said as set aside or for later, not as asked now; say only what you want done"
            ));
        }
    }
}

/// The changes a "not" before them forbids rather than asks for ([`forbidden_changes`]).
fn forbiddable(intent: &Intent) -> bool {
    matches!(
        intent,
        Intent::Speed(_)
            | Intent::Timelapse
            | Intent::Resize(_)
            | Intent::RemoveAudio
            | Intent::Crop(_)
            | Intent::Rotate(_)
            | Intent::RotateHint(_)
            | Intent::Flip { .. }
            | Intent::Reverse
            | Intent::ReverseSound
            | Intent::Grayscale
            | Intent::Fps(_)
            | Intent::FpsFactor(_)
            | Intent::Pad(_)
            | Intent::Bars
            | Intent::Compress(_)
    )
}

/// What a described state and an asked change are compared by: "too quiet, normalize the
/// loudness" asks for a change of the same kind as the state it names.
fn kind_of_change(intent: &Intent) -> std::mem::Discriminant<Intent> {
    match intent {
        Intent::Normalize(_) => std::mem::discriminant(&Intent::Volume(Level::Db(0.0))),
        other => std::mem::discriminant(other),
    }
}

/// The picture size a change names, if any ("1080x1920" to resize, crop or pad to).
fn said_size(intent: &Intent) -> Option<(u32, u32)> {
    match *intent {
        Intent::Resize(Resize::Dim(w, h))
        | Intent::Crop(Crop::Dim(w, h))
        | Intent::Pad(Pad::Dim(w, h))
        | Intent::EachSize(w, h) => Some((w, h)),
        _ => None,
    }
}

/// Like [`kind_of_change`], with the turns of the picture as one ("it was recorded upside
/// down, rotate it 180": the state said and the change asked are the same turn).
fn same_result(intent: &Intent) -> std::mem::Discriminant<Intent> {
    match intent {
        Intent::Flip { .. } | Intent::RotateHint(_) => std::mem::discriminant(&Intent::Rotate(0)),
        other => kind_of_change(other),
    }
}

/// The changes that, said after "is"/"has"/"looks", describe the file rather than ask for them
/// (`grammar::described`). Not a size or a format ("it's too big", "the TV only reads mp4": what
/// is wanted follows from them), nor a hint of how it was filmed.
fn describes(intent: &Intent) -> bool {
    matches!(
        intent,
        Intent::VideoFilter(_)
            | Intent::AudioFilter(_)
            | Intent::Volume(_)
            | Intent::Pad(_)
            | Intent::Bars
            | Intent::Rotate(_)
            | Intent::Flip { .. }
            | Intent::Grayscale
            | Intent::Reverse
            | Intent::ReverseSound
            | Intent::Speed(_)
            | Intent::Timelapse
            | Intent::Denoise
            | Intent::Crop(_)
            | Intent::BlurRegion(..)
            | Intent::BlurFill
            | Intent::Fade { .. }
            | Intent::Resize(_)
            | Intent::Normalize(_)
            | Intent::Fps(_)
            | Intent::FpsFactor(_)
            | Intent::Channels(_)
            | Intent::RemoveAudio
            | Intent::Repeat(_)
    )
}

fn values(caps: &[Capture]) -> impl Iterator<Item = (&Value, Option<&str>)> {
    caps.iter().filter_map(|c| match &c.cap {
        Cap::Value(v) => Some((v, c.prev.as_deref())),
        _ => None,
    })
}

fn first_key(caps: &[Capture]) -> Option<String> {
    caps.iter().find_map(|c| match &c.cap {
        Cap::Key(k) => Some(k.clone()),
        _ => None,
    })
}

/// Seconds of a time-like capture; bare numbers count as seconds.
fn secs(v: &Value) -> Option<f64> {
    match v {
        Value::Num(n) => Some(*n),
        other => other.seconds(),
    }
}

/// The file names a rule captured, in the order said.
fn file_caps(caps: &[Capture]) -> impl Iterator<Item = &String> {
    caps.iter().filter_map(|c| match &c.cap {
        Cap::File(f) => Some(f),
        _ => None,
    })
}

fn times(caps: &[Capture]) -> Vec<f64> {
    values(caps).filter_map(|(v, _)| secs(v)).collect()
}

/// Whether a file captured is a picture ("add logo.png ..."): only a picture is laid over.
fn names_a_picture(caps: &[Capture]) -> bool {
    caps.iter().any(|c| match &c.cap {
        Cap::File(f) => crate::media::is_picture_name(f),
        _ => false,
    })
}

fn arg_num(args: &[String], i: usize) -> Option<f64> {
    args.get(i).and_then(|a| a.parse().ok())
}

fn ratio(s: &str) -> Option<f64> {
    let (w, h) = s.split_once(':')?;
    let (w, h): (f64, f64) = (w.parse().ok()?, h.parse().ok()?);
    (w > 0.0 && h > 0.0).then_some(w / h)
}

fn positive_int(n: f64) -> Option<u32> {
    (1.0..100_000.0).contains(&n).then_some(n.round() as u32)
}

/// A speed factor from "2x", "50%", "by 50%", "half"; `dir` is +1 for faster, -1 for
/// slower, 0 for "at this speed".
fn speed_factor(v: &Value, prev: Option<&str>, dir: i32) -> Option<f64> {
    let f = match (v, dir) {
        (Value::Mult(m) | Value::Num(m), 1) => m.max(1.0 / m),
        (Value::Mult(m) | Value::Num(m), -1) => m.min(1.0 / m),
        (Value::Mult(m) | Value::Num(m), _) => *m,
        (Value::Pct(p), 0) => p / 100.0,
        (Value::Pct(p), _) if prev == Some("to") => p / 100.0,
        (Value::Pct(p), 1) => 1.0 + p / 100.0,
        (Value::Pct(p), _) => 1.0 - p / 100.0,
        _ => return None,
    };
    (f.is_finite() && f > 0.01 && f <= 100.0 && (f - 1.0).abs() > 1e-9).then_some(f)
}

fn level(v: &Value, prev: Option<&str>, dir: i32) -> Option<Level> {
    let l = match (v, dir) {
        (Value::Db(d), 1) => Level::Db(d.abs()),
        (Value::Db(d), -1) => Level::Db(-d.abs()),
        (Value::Db(d), _) => Level::Db(*d),
        (Value::Mult(m), 1) => Level::Factor(m.max(1.0 / m)),
        (Value::Mult(m), -1) => Level::Factor(m.min(1.0 / m)),
        (Value::Mult(m), _) => Level::Factor(*m),
        (Value::Pct(p), 0) => Level::Factor(p / 100.0),
        (Value::Pct(p), _) if prev == Some("to") => Level::Factor(p / 100.0),
        (Value::Pct(p), 1) => Level::Factor(1.0 + p / 100.0),
        (Value::Pct(p), _) => Level::Factor(1.0 - p / 100.0),
        // "by 6" is decibels; "to 150" a percentage.
        (Value::Num(n), 0) if *n <= 4.0 => Level::Factor(*n),
        (Value::Num(n), _) if *n > 30.0 => Level::Factor(n / 100.0),
        (Value::Num(n), d) => Level::Db(if d < 0 { -n.abs() } else { n.abs() }),
        _ => return None,
    };
    match l {
        Level::Factor(f) if !(f > 0.0 && f <= 20.0) || f == 1.0 => None,
        other => Some(other),
    }
}

/// Builds the intent a rule names from its arguments and captures. `Ok(None)` turns the
/// match down; `Err` is a grammar mistake (unknown intent), caught by the tests.
pub fn build(rule: &Rule, caps: &[Capture]) -> Result<Option<Intent>, String> {
    let args = &rule.args;
    let arg = |i: usize| args.get(i).map(String::as_str).unwrap_or("");
    let first = values(caps).next();
    let intent = match rule.intent.as_str() {
        "unsupported" => Some(Intent::Unsupported(args.join(" "))),
        "recipe" => Some(Intent::Recipe(arg(0).to_string())),
        "output-name" => caps.iter().find_map(|c| match &c.cap {
            Cap::File(f) => Some(Intent::OutputName(f.clone())),
            _ => None,
        }),
        "tile" => match first {
            Some((Value::Dim(c, r), _)) if (1..=10).contains(c) && (1..=10).contains(r) => {
                Some(Intent::Frames(Frames::Tile(*c, *r)))
            }
            Some(_) => None,
            None => Some(Intent::Frames(Frames::Tile(3, 3))),
        },
        "frames" => {
            let f = match arg(0) {
                "every" => times(caps)
                    .last()
                    .copied()
                    .filter(|s| *s > 0.0)
                    .map(Frames::Every),
                "nth" => values(caps).find_map(|(v, _)| match v {
                    Value::Ord(n) | Value::Frames(n) => positive_int(*n).map(Frames::Nth),
                    _ => None,
                }),
                "rate" => values(caps).find_map(|(v, _)| match v {
                    Value::Rate(r) if *r > 0.0 => Some(Frames::Rate(*r)),
                    _ => None,
                }),
                "all" => Some(Frames::All),
                "head" | "count" => values(caps)
                    .find_map(|(v, _)| match v {
                        Value::Num(n) | Value::Frames(n) if *n <= 1000.0 => positive_int(*n),
                        _ => None,
                    })
                    .map(|n| {
                        if arg(0) == "head" {
                            Frames::Head(n)
                        } else {
                            Frames::Count(n)
                        }
                    }),
                other => return Err(format!("frames {other}")),
            };
            f.map(Intent::Frames)
        }
        "thumb" => match arg(0) {
            "at" => times(caps)
                .first()
                .copied()
                .filter(|s| *s >= 0.0)
                .map(Thumb::At),
            "first" => Some(Thumb::First),
            "last" => Some(Thumb::Last),
            "middle" => Some(Thumb::Middle),
            "frame" => values(caps)
                .find_map(|(v, _)| match v {
                    Value::Num(n) | Value::Ord(n) => positive_int(*n + 1.0).map(|k| k - 1),
                    _ => None,
                })
                .map(Thumb::Frame),
            _ => Some(Thumb::Default),
        }
        .map(Intent::Thumb),
        "fade" => {
            let kind = match arg(0) {
                "in" => FadeKind::In,
                "out" => FadeKind::Out,
                "both" => FadeKind::Both,
                other => return Err(format!("fade {other}")),
            };
            let secs = values(caps)
                .find_map(|(v, _)| v.seconds())
                .filter(|s| *s > 0.0);
            Some(Intent::Fade {
                kind,
                secs,
                audio_only: arg(1) == "audio",
            })
        }
        "afilter" => {
            let hz = values(caps).find_map(|(v, _)| match v {
                Value::Hz(h) => Some(*h),
                _ => None,
            });
            Some(Intent::AudioFilter(match (arg(0), hz) {
                ("highpass", h) => format!("highpass=f={}", h.unwrap_or(200.0)),
                ("lowpass", h) => format!("lowpass=f={}", h.unwrap_or(3000.0)),
                (f, _) => f.to_string(),
            }))
        }
        "vfilter" => Some(Intent::VideoFilter(arg(0).to_string())),
        "denoise" => Some(Intent::Denoise),
        "end-shortest" => Some(Intent::EndShortest),
        "replace-audio" => Some(Intent::ReplaceAudio),
        // "the video of a.mp4 and the audio of song.mp3": only with a sound file last, so the
        // picture's file is the only video (two videos named so would hang on input order).
        "replace-audio-file" => file_caps(caps)
            .last()
            .is_some_and(|f| crate::media::is_sound_name(f))
            .then_some(Intent::ReplaceAudio),
        "add-track" => Some(Intent::AddTrack),
        "mix-audio" => Some(Intent::MixAudio),
        "add-audio" => Some(Intent::AddAudio),
        // "add song.mp3 to the video": only a sound file named is added as sound.
        "add-audio-file" => file_caps(caps)
            .any(|f| crate::media::is_sound_name(f))
            .then_some(Intent::AddAudio),
        "extract-audio" => Some(Intent::ExtractAudio),
        "remove-audio" => Some(Intent::RemoveAudio),
        "speed" => {
            let dir = match arg(0) {
                "up" => 1,
                "down" => -1,
                "set" | "length" => 0,
                other => return Err(format!("speed {other}")),
            };
            // "half as long": the length is the inverse of the speed.
            if arg(0) == "length" {
                return Ok(first
                    .and_then(|(v, prev)| speed_factor(v, prev, 0))
                    .map(|f| Intent::Speed(1.0 / f)));
            }
            // "reduce the speed to 150%", "speed it up to 0.5x": a speed that goes the other way
            // than the verb said (it had sped up, slowed down) (2026-11-29).
            if let Some((v @ (Value::Pct(_) | Value::Mult(_) | Value::Num(_)), Some("to"))) = first
                && dir != 0
                && let Some(f) = speed_factor(v, Some("to"), 0)
                && (f < 1.0) == (dir == 1)
            {
                let (way, does) = if dir == 1 {
                    ("up", "slows it down")
                } else {
                    ("down", "speeds it up")
                };
                return Ok(Some(Intent::Unsupported(format!(
                    "the speed is said to go {way} to {}x, which {does}; say \"play it at {}x\" or the change you want",
                    crate::numbers::fmt_num(f),
                    crate::numbers::fmt_num(f)
                ))));
            }
            match (first, arg_num(args, 1)) {
                (Some((v, prev)), _) => speed_factor(v, prev, dir).map(Intent::Speed),
                (None, Some(n)) => Some(Intent::Speed(n)),
                (None, None) if dir == 1 => Some(Intent::Speed(2.0)),
                (None, None) if dir == -1 => Some(Intent::Speed(0.5)),
                (None, None) => None,
            }
        }
        "reverse" => Some(Intent::Reverse),
        "reverse-sound" => Some(Intent::ReverseSound),
        "timelapse" => Some(Intent::Timelapse),
        "speech" => Some(Intent::Speech),
        "crossfade" => Some(Intent::Crossfade(
            times(caps).first().copied().filter(|t| *t > 0.0),
        )),
        "no-reencode" => Some(Intent::NoReencode),
        "no-crop" => Some(Intent::NoCrop),
        "subtitle-format" => Some(Intent::SubtitleFormat(arg(0).to_string())),
        "keep-size" => Some(Intent::KeepSize),
        "same-length" => Some(Intent::SameLength),
        "segment-count" => values(caps)
            .find_map(|(v, _)| match v {
                Value::Num(n) => positive_int(*n),
                _ => None,
            })
            .filter(|n| (2..=1000).contains(n))
            .map(Intent::SegmentCount),
        "split" => Some(Intent::Split),
        "part-count" => values(caps)
            .find_map(|(v, _)| match v {
                Value::Num(n) => positive_int(*n),
                _ => None,
            })
            .filter(|n| (2..=1000).contains(n))
            .map(Intent::PartCount),
        "segment" => times(caps)
            .first()
            .copied()
            .filter(|t| *t >= 0.5)
            .map(Intent::Segment),
        "blur-fill" => Some(Intent::BlurFill),
        "untouched" => Some(Intent::Untouched {
            picture: arg(0) == "picture",
        }),
        "rest-discarded" => Some(Intent::RestDiscarded),
        "remove-said" => Some(Intent::RemoveSaid),
        "kept" => Some(Intent::Kept {
            picture: arg(0) == "picture",
        }),
        "blur-region" => match first {
            Some((Value::Dim(w, h), _)) if *w > 0 && *h > 0 => Some(Intent::BlurRegion(*w, *h)),
            _ => None,
        },
        // Silence between two times, the rest of the sound and the whole length kept.
        "mute-head" => {
            let t = times(caps);
            (t.first().is_some_and(|&t| t > 0.0)).then(|| {
                Intent::AudioFilter(format!(
                    "volume=enable='between(t,0,{})':volume=0",
                    crate::numbers::fmt_num(t[0])
                ))
            })
        }
        "mute-range" => {
            let t = times(caps);
            (t.len() >= 2 && t[0] >= 0.0 && t[1] > t[0]).then(|| {
                Intent::AudioFilter(format!(
                    "volume=enable='between(t,{},{})':volume=0",
                    crate::numbers::fmt_num(t[0]),
                    crate::numbers::fmt_num(t[1])
                ))
            })
        }
        "volume" => {
            let dir = match arg(0) {
                "up" => 1,
                "down" => -1,
                "set" => 0,
                other => return Err(format!("volume {other}")),
            };
            // "turn the volume down to zero": no sound; read as decibels it had been 0 dB, the
            // sound unchanged (2026-11-29, fifteenth pass).
            if let Some((Value::Num(n) | Value::Pct(n), Some("to"))) = first
                && *n == 0.0
            {
                return Ok(Some(Intent::RemoveAudio));
            }
            match first {
                // "increase the volume to 50%": a level that goes the other way than the verb
                // said (it had made it quieter) (2026-11-29).
                Some((v, prev)) => level(v, prev, dir).map(|l| match l {
                    Level::Factor(f) if (dir == 1 && f < 1.0) || (dir == -1 && f > 1.0) => {
                        let pct = crate::numbers::fmt_num((f * 100.0).round());
                        let (way, does) = if dir == 1 { ("up", "lowers") } else { ("down", "raises") };
                        Intent::Unsupported(format!(
                            "the volume is said to go {way} to {pct}% of what it is, which {does} it; say \"set the volume to {pct}%\" or the change you want"
                        ))
                    }
                    l => Intent::Volume(l),
                }),
                None if dir == 1 => Some(Intent::Volume(Level::Factor(2.0))),
                None if dir == -1 => Some(Intent::Volume(Level::Factor(0.5))),
                // "quietly": the level the rule names.
                None => arg_num(args, 1).map(|f| Intent::Volume(Level::Factor(f))),
            }
        }
        // A turn asked with no amount: what a description says, else refused (`wants.rs`).
        "rotate-unsaid" => Some(Intent::RotateHint(0)),
        "rotate" | "rotate-hint" => {
            let deg = match first {
                Some((Value::Deg(d) | Value::Num(d), _)) => *d,
                _ => arg_num(args, 1).unwrap_or(90.0),
            };
            let signed = if arg(0) == "ccw" { -deg } else { deg };
            let norm = (signed.round() as i32).rem_euclid(360);
            (norm != 0).then_some(if rule.intent == "rotate-hint" {
                Intent::RotateHint(norm)
            } else {
                Intent::Rotate(norm)
            })
        }
        "flip" => Some(Intent::Flip {
            horizontal: arg(0) == "h",
            bare: arg(1) == "bare",
        }),
        "crop" => {
            let len = values(caps).find_map(|(v, _)| match v {
                Value::Px(n) | Value::Num(n) => positive_int(*n),
                _ => None,
            });
            let crop = match arg(0) {
                "square" => Some(Crop::Square),
                "aspect" => match first {
                    Some((Value::Clock(p), _)) => {
                        ratio(&format!("{}:{}", p[0], p[1])).map(Crop::Aspect)
                    }
                    _ => ratio(arg(1)).map(Crop::Aspect),
                },
                "dim" => match first {
                    Some((Value::Dim(w, h), _)) if *w > 0 && *h > 0 => Some(Crop::Dim(*w, *h)),
                    _ => None,
                },
                // "crop to 50%" keeps half; "crop 10%" takes 10% off each edge.
                "edges" => match first {
                    Some((Value::Pct(p), prev)) => {
                        let keep = if prev == Some("to") {
                            p / 100.0
                        } else {
                            1.0 - 2.0 * p / 100.0
                        };
                        (keep > 0.05 && keep < 1.0).then_some(Crop::Keep(keep))
                    }
                    _ => len.map(Crop::Edges),
                },
                "side" | "side-first" => first_key(caps).zip(len).map(|(s, n)| Crop::Side(s, n)),
                "sides" => {
                    let amount = values(caps).find_map(|(v, _)| match v {
                        Value::Pct(p) if *p > 0.0 && *p < 50.0 => Some(Amount::Share(p / 100.0)),
                        Value::Px(n) | Value::Num(n) => positive_int(*n).map(Amount::Px),
                        _ => None,
                    });
                    first_key(caps)
                        .zip(amount)
                        .map(|(k, a)| Crop::Sides(Sides::from_key(&k), a))
                }
                "half" => first_key(caps).map(Crop::Half),
                // "cut off the bottom half": the other half kept.
                "half-off" => first_key(caps).and_then(|k| {
                    let kept = match k.as_str() {
                        "top" => "bottom",
                        "bottom" => "top",
                        "left" => "right",
                        "right" => "left",
                        _ => return None,
                    };
                    Some(Crop::Half(kept.to_string()))
                }),
                other => return Err(format!("crop {other}")),
            };
            crop.map(Intent::Crop)
        }
        // "side by side, each 640x360": the size of each picture, not of the result.
        "each-size" => match first {
            Some((Value::Dim(w, h), _)) => Some(Intent::EachSize(*w, *h)),
            _ => None,
        },
        "pad" => {
            let pad = match arg(0) {
                "aspect" => match first {
                    Some((Value::Clock(p), _)) => {
                        ratio(&format!("{}:{}", p[0], p[1])).map(Pad::Aspect)
                    }
                    _ => ratio(arg(1)).map(Pad::Aspect),
                },
                "dim" => match first {
                    Some((Value::Dim(w, h), _)) => Some(Pad::Dim(*w, *h)),
                    _ => None,
                },
                "square" => Some(Pad::Square),
                other => return Err(format!("pad {other}")),
            };
            pad.map(Intent::Pad)
        }
        "border" | "margin" | "overlay-margin" => {
            let px = match first {
                Some((Value::Px(n) | Value::Num(n), _)) => positive_int(*n).filter(|n| *n <= 1000),
                _ => arg_num(args, 0).and_then(positive_int),
            };
            match rule.intent.as_str() {
                "border" => px.map(|p| Intent::Pad(Pad::Border(p))),
                // "a bit of space from the edge": the margin a watermark gets anyway.
                "overlay-margin" => Some(Intent::Margin {
                    px,
                    border_alone: false,
                }),
                _ => px.map(|px| Intent::Margin {
                    px: Some(px),
                    border_alone: true,
                }),
            }
        }
        "resize" | "keep-at" | "resize-max" => {
            let r = match (arg(0), first) {
                ("short", Some((Value::Res(h), _))) => Some(Resize::Short(*h)),
                ("short", None) => arg_num(args, 1).and_then(positive_int).map(Resize::Short),
                ("width", Some((Value::Px(n) | Value::Num(n), _))) => {
                    positive_int(*n).filter(|n| *n >= 16).map(Resize::Width)
                }
                ("height", Some((Value::Px(n) | Value::Num(n), _))) => {
                    positive_int(*n).filter(|n| *n >= 16).map(Resize::Height)
                }
                ("dim", Some((Value::Dim(w, h), _))) if *w >= 16 && *h >= 16 => {
                    Some(Resize::Dim(*w, *h))
                }
                ("down", Some((Value::Pct(p), _))) if *p > 0.0 && *p < 100.0 => {
                    Some(Resize::Factor(1.0 - p / 100.0))
                }
                ("factor", None) => arg_num(args, 1).map(Resize::Factor),
                ("factor", Some((Value::Px(n), _))) => positive_int(*n).map(Resize::Width),
                ("factor", Some((Value::Num(n), _))) if STANDARD_HEIGHTS.contains(&(*n as u32)) => {
                    Some(Resize::Short(*n as u32))
                }
                ("factor", Some((Value::Num(n), _))) if *n >= 16.0 => {
                    positive_int(*n).map(Resize::Width)
                }
                ("factor", Some((Value::Mult(f) | Value::Num(f), _))) => Some(Resize::Factor(*f)),
                ("factor", Some((Value::Pct(p), _))) => Some(Resize::Factor(p / 100.0)),
                ("short" | "width" | "height" | "dim" | "down" | "factor", _) => None,
                (other, _) => return Err(format!("resize {other}")),
            };
            let r = r.filter(
                |r| !matches!(r, Resize::Factor(f) if !(*f > 0.01 && *f <= 8.0) || *f == 1.0),
            );
            if rule.intent == "keep-at" {
                r.map(|r| Intent::Held(Held::Size(r)))
            } else if rule.intent == "resize-max" {
                r.map(Intent::ResizeAtMost)
            } else {
                r.map(Intent::Resize)
            }
        }
        "keep-fps" => match first {
            Some((Value::Rate(r) | Value::Num(r), _)) if *r > 0.0 && *r <= 240.0 => {
                Some(Intent::Held(Held::Fps(*r)))
            }
            _ => None,
        },
        "keep-shape" => Some(Intent::Held(Held::Portrait(arg(0) == "portrait"))),
        "noop" => Some(Intent::Noop),
        "job-part" => Some(Intent::JobPart(arg(0).to_string())),
        "keep-aspect" => Some(Intent::KeepAspect),
        "stretch" => Some(Intent::Stretch),
        // "1秒5コマ": so many frames in one second (2026-11-29). Only one second: "every 2
        // seconds, one frame" is a picture every 2 seconds, not a frame rate.
        "fps" if arg(0) == "per" => match times(caps).first() {
            Some(&1.0) => values(caps).find_map(|(v, _)| match v {
                Value::Frames(n) if *n > 0.0 && *n <= 240.0 => Some(Intent::Fps(*n)),
                _ => None,
            }),
            _ => None,
        },
        "fps" => match (arg(0), first) {
            ("factor", Some((Value::Mult(m), _))) => Some(Intent::FpsFactor(*m)),
            ("factor", None) => arg_num(args, 1).map(Intent::FpsFactor),
            ("factor", _) => None,
            (_, Some((Value::Rate(r) | Value::Num(r), _))) if *r > 0.0 && *r <= 240.0 => {
                Some(Intent::Fps(*r))
            }
            _ => None,
        },
        "channels" => match first {
            Some((Value::Num(n), _)) => positive_int(*n).filter(|n| *n <= 8).map(Intent::Channels),
            _ => arg_num(args, 0)
                .and_then(positive_int)
                .map(Intent::Channels),
        },
        "sample-rate" => {
            let hz = match first {
                Some((Value::Hz(h) | Value::Bitrate(h), _)) => Some(*h),
                Some((Value::Num(n), _)) if *n < 1000.0 => Some(n * 1000.0),
                Some((Value::Num(n), _)) => Some(*n),
                // A rate the rule names ("CD quality": 44100).
                _ => arg(0).parse::<f64>().ok(),
            };
            // "22 kHz", "11k", "44khz" name the CD family's rates in round thousands: 22000 Hz
            // is no rate MP3 or AAC takes, and such a job had failed (2026-11-29).
            hz.filter(|h| (8000.0..=192_000.0).contains(h)).map(|h| {
                Intent::SampleRate(match h.round() as u32 {
                    11000 => 11025,
                    22000 => 22050,
                    44000 => 44100,
                    88000 => 88200,
                    n => n,
                })
            })
        }
        // A loudness target's ceiling ("true peak around -1.5"), in dBTP: at most 0.
        "true-peak" => match first {
            Some((Value::Num(n) | Value::Db(n), _)) if n.abs() <= 9.0 => {
                Some(Intent::TruePeak(-n.abs()))
            }
            _ => None,
        },
        "normalize" => Some(Intent::Normalize(values(caps).find_map(|(v, _)| match v {
            Value::Lufs(l) => Some(-l.abs()),
            _ => None,
        }))),
        "audio-bitrate" => match first {
            Some((Value::Bitrate(b), _)) => Some(*b),
            Some((Value::Num(n), _)) if *n < 1000.0 => Some(n * 1000.0),
            _ => None,
        }
        .filter(|b| (8_000.0..=640_000.0).contains(b))
        .map(|b| Intent::AudioBitrate(b as u32)),
        "video-bitrate" => match first {
            // Said alone, a rate a sound is coded at ("a version at 128k") may be either's.
            Some((Value::Bitrate(b), _))
                if arg(0) == "bare" && *b <= 320_000.0 && *b >= 8_000.0 =>
            {
                Some(Intent::BareBitrate(*b as u32))
            }
            Some((Value::Bitrate(b), _)) if *b >= 50_000.0 && *b <= 200e6 => {
                Some(Intent::VideoBitrate(*b as u32))
            }
            _ => None,
        },
        "target-size" => match first {
            Some((Value::Bytes(b), _)) if *b >= 10_000.0 => Some(Intent::TargetSize(*b)),
            _ => None,
        },
        "target-factor" => {
            let f = match first {
                Some((Value::Pct(p), Some("to"))) => Some(p / 100.0),
                Some((Value::Pct(p), _)) => Some(1.0 - p / 100.0),
                Some((Value::Mult(m), _)) => Some(m.min(1.0 / m)),
                _ => None,
            };
            f.filter(|f| *f > 0.01 && *f < 1.0)
                .map(Intent::TargetFactor)
        }
        "crf" => match first {
            Some((Value::Num(n), _)) if (0.0..=63.0).contains(n) => Some(Intent::Crf(*n as u32)),
            _ => None,
        },
        "compress" => Some(Intent::Compress(match arg(0) {
            "strong" => Strength::Strong,
            "light" => Strength::Light,
            _ => Strength::Normal,
        })),
        "quality" => match arg(0) {
            "high" => Some(Intent::QualityHigh),
            "lossless" => Some(Intent::Lossless),
            other => return Err(format!("quality {other}")),
        },
        "reencode" => Some(Intent::Reencode),
        "trim" => {
            let t = times(caps);
            let ok = |s: &f64| *s >= 0.0;
            let one = t.first().copied().filter(ok);
            let two = (t.len() >= 2 && t[0] >= 0.0 && t[1] > t[0]).then(|| (t[0], t[1]));
            let trim = match arg(0) {
                "keep-head" => one.filter(|s| *s > 0.0).map(Trim::KeepHead),
                "cut-head" => one.filter(|s| *s > 0.0).map(Trim::CutHead),
                "keep-tail" => one.filter(|s| *s > 0.0).map(Trim::KeepTail),
                "cut-tail" => one.filter(|s| *s > 0.0).map(Trim::CutTail),
                "cut-both" => one.filter(|s| *s > 0.0).map(|s| Trim::CutEnds(s, s)),
                "cut-ends" => {
                    (t.len() == 2 && t[0] >= 0.0 && t[1] >= 0.0).then(|| Trim::CutEnds(t[0], t[1]))
                }
                "range" => two.map(|(a, b)| Trim::Range(a, b)),
                "cut-range" => two.map(|(a, b)| Trim::CutRange(a, b)),
                "start" => one.map(Trim::Start),
                "end" => one.filter(|s| *s > 0.0).map(Trim::End),
                // "taglia al secondo 5", "cut at second 5": a point in time, and which side of
                // it is kept cannot be told (2026-11-27).
                "duration"
                    if caps.iter().any(|c| {
                        c.text.starts_with("second ")
                            || c.prev.as_deref().is_some_and(|p| p == "at")
                    }) =>
                {
                    return Ok(Some(Intent::Unsupported(
                        "\"cut at\" a point in time does not say whether what comes before it or after it is kept; ask to \"keep the first 5 seconds\" or \"remove the first 5 seconds\"".into(),
                    )));
                }
                "duration" => one.filter(|s| *s > 0.0).map(Trim::Duration),
                other => return Err(format!("trim {other}")),
            };
            trim.map(Intent::Trim)
        }
        "grayscale" => Some(Intent::Grayscale),
        "overlay" => Some(Intent::Overlay),
        // "add logo.png in the corner": only a picture named is laid over the video.
        "overlay-file" => names_a_picture(caps).then_some(Intent::Overlay),
        "overlay-size" => arg_num(args, 0).map(Intent::OverlaySize),
        "opacity" | "opacity-inverse" => {
            let o = match first {
                Some((Value::Pct(p), _)) => Some(p / 100.0),
                _ => arg_num(args, 0),
            };
            let o = if rule.intent == "opacity-inverse" {
                o.map(|o| 1.0 - o)
            } else {
                o
            };
            o.filter(|o| *o > 0.0 && *o <= 1.0).map(Intent::Opacity)
        }
        "extend" => {
            let keys: Vec<&str> = caps
                .iter()
                .filter_map(|c| match &c.cap {
                    Cap::Key(k) => Some(k.as_str()),
                    _ => None,
                })
                .collect();
            let at = match (arg(0), keys.iter().find(|k| **k == "start" || **k == "end")) {
                (_, Some(&"start")) | ("start", None) => End::Start,
                _ => End::End,
            };
            let fill = match keys.iter().find(|k| **k != "start" && **k != "end") {
                Some(&"hold") | Some(&"silence") | None => Fill::Hold,
                Some(c) => Fill::Color(c.to_string()),
            };
            let fill = match arg(1) {
                "" => fill,
                "hold" => Fill::Hold,
                color => Fill::Color(color.into()),
            };
            times(caps)
                .first()
                .copied()
                .filter(|s| *s > 0.0 && *s <= 600.0)
                .map(|secs| Intent::Extend { at, secs, fill })
        }
        "repeat" => {
            let n = match first {
                Some((Value::Mult(m) | Value::Num(m), _)) => positive_int(*m),
                _ => arg_num(args, 0).and_then(positive_int),
            };
            n.filter(|n| (2..=100).contains(n)).map(Intent::Repeat)
        }
        "loop-for" => times(caps)
            .first()
            .copied()
            .filter(|s| *s > 0.0 && *s <= 3600.0)
            .map(Intent::LoopFor),
        "length-of" if arg(0) == "picture" => Some(Intent::LengthOfPicture),
        "length-of" => Some(Intent::LengthOfSound),
        "not-longer" => Some(Intent::Qualifies(Qualifier::NotLonger)),
        "not-bars" => Some(Intent::Qualifies(Qualifier::NotBars)),
        "that-size" => Some(Intent::Qualifies(Qualifier::ThatSize)),
        "soft-join" => Some(Intent::Qualifies(Qualifier::SoftJoin)),
        "sound-fades-too" => Some(Intent::Qualifies(Qualifier::SoundFadesToo)),
        "crop-sides" => Some(Intent::Qualifies(Qualifier::CropSides(arg(0) == "sides"))),
        "no-upscale" => Some(Intent::NoUpscale),
        "for-span" => match arg(0) {
            "rest-clean" => Some(Intent::Qualifies(Qualifier::RestClean)),
            end => {
                let t = times(caps);
                let shown = match (end, t.as_slice()) {
                    ("head", [t, ..]) if *t > 0.0 => Some(Shown::First(*t)),
                    ("tail", [t, ..]) if *t > 0.0 => Some(Shown::Last(*t)),
                    ("from", [t, ..]) if *t > 0.0 => Some(Shown::From(*t)),
                    ("between", [a, b, ..]) if b > a => Some(Shown::Between(*a, *b)),
                    _ => None,
                };
                // Said with a file, only a picture's: a sound started at a time is refused.
                match arg(1) {
                    "overlay-file" if !names_a_picture(caps) => None,
                    with => shown.map(|shown| Intent::ForSpan {
                        shown,
                        overlay: with.starts_with("overlay"),
                    }),
                }
            }
        },
        "gif-look" => Some(Intent::GifLook {
            smooth: arg(0) == "smooth",
        }),
        "loop-to" => match arg(0) {
            "sound" => Some(Intent::LoopTo(LoopTo::Sound)),
            "picture" => Some(Intent::LoopTo(LoopTo::Picture)),
            // The file repeated is the first named: a sound's, or else a picture's.
            _ => file_caps(caps).next().map(|f| {
                Intent::LoopTo(if crate::media::is_sound_name(f) {
                    LoopTo::Sound
                } else {
                    LoopTo::Picture
                })
            }),
        },
        "subtitles" => Some(Intent::Subtitles {
            burn: arg(0) == "burn",
        }),
        "concat" => Some(Intent::Concat),
        "bars" => Some(Intent::Bars),
        // The files in the order captured, or reversed ("b.mp4 on the end of a.mp4").
        "join-order" => {
            let mut files: Vec<String> = file_caps(caps).cloned().collect();
            if arg(0) == "reversed" {
                files.reverse();
            }
            (!files.is_empty()).then_some(Intent::JoinOrder(files))
        }
        "stack" => Some(Intent::Stack {
            horizontal: arg(0) == "h",
        }),
        "combine" => Some(Intent::Combine),
        "image-to-video" => Some(Intent::ImageToVideo),
        "acodec" => first_key(caps).map(Intent::AudioCodec),
        "vcodec" => first_key(caps).map(|key| Intent::VideoCodec {
            key,
            targeted: arg(0) == "target",
        }),
        "format" => {
            let how = match arg(0) {
                "target" => FormatHow::Target,
                "compatible" => FormatHow::Compatible,
                "source" => FormatHow::Source,
                "mention" => FormatHow::Mention,
                other => return Err(format!("format {other}")),
            };
            let key = if arg(0) == "compatible" {
                Some(arg(1).to_string())
            } else {
                first_key(caps)
            };
            key.map(|key| Intent::Format { key, how })
        }
        // `corner center`: a place named by words no `$corner` phrase holds.
        "corner" => first_key(caps)
            .or_else(|| (!arg(0).is_empty()).then(|| arg(0).to_string()))
            .map(Intent::Corner),
        "color" => first_key(caps).map(Intent::Color),
        "at" => times(caps)
            .first()
            .copied()
            .filter(|s| *s >= 0.0)
            .map(Intent::At),
        // Only times with a unit: a lone "9:16" is more likely a shape than a time.
        "loose-time" => values(caps).find_map(|(v, _)| match v {
            Value::Time(t) if *t > 0.0 => Some(Intent::LooseTime(*t)),
            _ => None,
        }),
        other => return Err(format!("unknown intent `{other}`")),
    };
    Ok(intent)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_names_a_known_intent() {
        for rule in &task_grammar().rules {
            if let Err(e) = build(rule, &[]) {
                panic!("task.txt line {}: {e}", rule.line);
            }
            // A refusal of one word is a `say` name misspelt: the message would be the name.
            assert!(
                rule.intent != "unsupported" || rule.args.len() > 1,
                "task.txt line {}: no message named {:?}",
                rule.line,
                rule.args
            );
        }
    }

    fn intents(s: &str) -> Vec<Intent> {
        understand(s)
            .heard
            .into_iter()
            .map(|(i, _)| i)
            .filter(|i| *i != Intent::Noop)
            .collect()
    }

    #[test]
    fn reads_common_requests() {
        assert!(intents("Remove the audio track").contains(&Intent::RemoveAudio));
        assert!(
            intents("Keep only the first 3 seconds").contains(&Intent::Trim(Trim::KeepHead(3.0)))
        );
        assert!(
            intents("Trim from 00:00:02 to 00:00:06")
                .contains(&Intent::Trim(Trim::Range(2.0, 6.0)))
        );
        assert!(intents("Speed the video up 2x").contains(&Intent::Speed(2.0)));
        assert!(intents("Rotate the video 90 degrees clockwise").contains(&Intent::Rotate(90)));
        assert!(intents("rotate it 90 degrees counterclockwise").contains(&Intent::Rotate(270)));
        assert!(
            intents("Make the audio twice as loud").contains(&Intent::Volume(Level::Factor(2.0)))
        );
        assert!(intents("slow it down by 50%").contains(&Intent::Speed(0.5)));
        assert!(intents("speed it up by 50%").contains(&Intent::Speed(1.5)));
        assert!(intents("cut the last 3 seconds").contains(&Intent::Trim(Trim::CutTail(3.0))));
        assert!(intents("Make it black and white").contains(&Intent::Grayscale));
        assert!(
            intents("Book me a table for two at an Italian restaurant")
                .iter()
                .all(|i| !i.is_action())
        );
    }
}
