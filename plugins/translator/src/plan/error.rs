//! Why a plan cannot be made. Each variant keeps the facts; `Display` words the sentence
//! that follows "I understood …, but" in the refusal.

use std::fmt;

use crate::numbers::fmt_num;

#[derive(Clone, Debug, PartialEq)]
pub enum PlanError {
    NoInput,
    /// A rule of `task.txt` marked the request as something this service cannot do.
    Unsupported(String),
    /// `kind` is "audio", "video" or "subtitle".
    NoStream {
        file: String,
        kind: &'static str,
    },
    UnknownLength {
        what: String,
        file: String,
    },
    UnknownFrameRate(String),
    StartsPastEnd {
        file: String,
        length: f64,
        start: f64,
    },
    EndBeforeStart {
        start: f64,
        end: f64,
    },
    NoFrameAt {
        file: String,
        length: f64,
        at: f64,
    },
    /// A join (watermark, new audio, …) without the second input it needs.
    NeedsInput(&'static str),
    /// The container cannot hold a codec; `instead` is a container that can.
    CannotHold {
        container: &'static str,
        what: String,
        instead: Option<&'static str>,
    },
    SampleRate {
        codec: &'static str,
        rate: u32,
    },
    TargetTooSmall {
        bytes: f64,
        secs: f64,
    },
    /// A crop or pad that leaves no picture.
    Geometry(String),
    NotSupported(&'static str),
    NoEncoder(&'static str),
}

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlanError::NoInput => write!(f, "there is no input file to work on"),
            PlanError::Unsupported(why) => write!(f, "this cannot be done here: {why}"),
            PlanError::NoStream { file, kind } => write!(f, "{file} has no {kind} stream"),
            PlanError::UnknownLength { what, file } => {
                write!(f, "{what} needs the length of {file}, which is unknown")
            }
            PlanError::UnknownFrameRate(file) => {
                write!(f, "the frame rate of {file} is unknown")
            }
            PlanError::StartsPastEnd {
                file,
                length,
                start,
            } => write!(
                f,
                "{file} is only {} s long, so it cannot start at {} s",
                fmt_num(*length),
                fmt_num(*start)
            ),
            PlanError::EndBeforeStart { start, end } => write!(
                f,
                "the end ({} s) comes before the start ({} s)",
                fmt_num(*end),
                fmt_num(*start)
            ),
            PlanError::NoFrameAt { file, length, at } => write!(
                f,
                "{file} is only {} s long, so there is no frame at {} s",
                fmt_num(*length),
                fmt_num(*at)
            ),
            PlanError::NeedsInput(what) => write!(f, "{what}"),
            PlanError::CannotHold {
                container,
                what,
                instead,
            } => {
                write!(f, "{container} cannot hold {what}")?;
                match instead {
                    Some(i) => write!(f, "; ask for {i} instead"),
                    None => Ok(()),
                }
            }
            PlanError::SampleRate { codec, rate } => {
                write!(f, "{codec} audio cannot have a sample rate of {rate} Hz")
            }
            PlanError::TargetTooSmall { bytes, secs } => write!(
                f,
                "{:.1} MB is too small for {} s of video",
                bytes / 1e6,
                fmt_num(*secs)
            ),
            PlanError::Geometry(why) => write!(f, "{why}"),
            PlanError::NotSupported(what) => write!(f, "{what}"),
            PlanError::NoEncoder(what) => write!(f, "no {what} encoder for this format"),
        }
    }
}

pub type Planned<T> = Result<T, PlanError>;
