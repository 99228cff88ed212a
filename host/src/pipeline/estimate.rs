//! Estimates before anything runs: how long a task will take, how large its outputs will be,
//! and what that costs. Time is the inputs' media duration over the speed this installation
//! measured on the account's earlier runs of the same kind (codec, preset, output height), kept
//! in the database so estimates improve with use and hold on every instance; defaults for the
//! kind until then. Output size: explicit bitrates, else the measured bytes per media second.

use std::sync::Arc;
use std::time::Duration;

use super::resolve::{InputFile, Resolved};
use crate::app::AppState;
use crate::db::Throughput;
use crate::error::AppResult;
use crate::media::inspect;
use crate::task::Task;
use crate::usage::{Confidence, Estimate};

/// Media seconds assumed when no input's duration can be read (URL inputs are not fetched).
const UNKNOWN_DURATION_S: f64 = 60.0;

/// What kind of work a task is, read from its first output's options.
#[derive(Debug, Clone, PartialEq)]
pub struct Kind {
    /// `libx264/medium/720`, `copy`, `audio`, `image`: what throughput is kept by.
    pub key: String,
    /// Media seconds per wall second before anything was measured.
    default_speed: f64,
    /// Explicit video + audio bitrates, bits per second.
    bitrate: Option<f64>,
    /// `-t` on the output.
    limit_s: Option<f64>,
    /// Still pictures: frames asked for.
    frames: Option<f64>,
}

/// Kinds with their default speeds (media seconds per wall second).
const AUDIO: (&str, f64) = ("audio", 100.0);
const COPY: (&str, f64) = ("copy", 200.0);

pub fn kind_of(task: &Task) -> Kind {
    let Some(out) = task.outputs.first() else {
        return Kind::new("unknown".into(), 2.0);
    };
    let opts = &out.options;
    let value = |names: &[&str]| {
        opts.windows(2)
            .find(|w| names.contains(&w[0].as_str()))
            .map(|w| w[1].as_str())
    };
    let flag = |name: &str| opts.iter().any(|o| o == name);
    let ext = out
        .file
        .rsplit_once('.')
        .map_or("", |(_, e)| e)
        .to_ascii_lowercase();
    let frames = value(&["-frames:v", "-vframes"]).and_then(|f| f.parse::<f64>().ok());
    let codec = value(&["-c:v", "-vcodec", "-codec:v", "-c"]);
    let key_and_speed = if matches!(ext.as_str(), "png" | "jpg" | "jpeg" | "webp" | "bmp")
        && (frames.is_some() || !ext.contains('%'))
    {
        ("image".to_string(), 50.0)
    } else if flag("-vn")
        || matches!(
            ext.as_str(),
            "mp3" | "m4a" | "aac" | "wav" | "flac" | "ogg" | "opus"
        )
    {
        (AUDIO.0.to_string(), AUDIO.1)
    } else if codec == Some("copy") {
        (COPY.0.to_string(), COPY.1)
    } else {
        let codec = codec.unwrap_or(match ext.as_str() {
            "webm" => "libvpx-vp9",
            "gif" => "gif",
            _ => "libx264",
        });
        let preset = value(&["-preset"]).unwrap_or("medium");
        let height = output_height(opts);
        let base = default_speed(codec, preset);
        let scale = height.map_or(1.0, |h| (720.0 / h as f64).clamp(0.1, 8.0));
        let bucket = height.map_or("src".to_string(), |h| bucket(h).to_string());
        (format!("{codec}/{preset}/{bucket}"), base * scale)
    };
    let rate = |names: &[&str]| value(names).and_then(bits_per_second);
    let (v, a) = (rate(&["-b:v"]), rate(&["-b:a"]));
    Kind {
        bitrate: (v.is_some() || a.is_some()).then(|| v.unwrap_or(0.0) + a.unwrap_or(0.0)),
        limit_s: value(&["-t"]).and_then(|t| t.parse().ok()),
        frames,
        ..Kind::new(key_and_speed.0, key_and_speed.1)
    }
}

impl Kind {
    /// Audio alone, whatever the codec.
    pub fn audio() -> Kind {
        Kind::new(AUDIO.0.into(), AUDIO.1)
    }

    /// Streams copied, nothing encoded.
    pub fn copy() -> Kind {
        Kind::new(COPY.0.into(), COPY.1)
    }

    fn new(key: String, default_speed: f64) -> Kind {
        Kind {
            key,
            default_speed,
            bitrate: None,
            limit_s: None,
            frames: None,
        }
    }

    /// The media seconds a run of this kind processes, given the inputs' duration.
    fn media_s(&self, input_s: f64) -> f64 {
        match (self.key.as_str(), self.frames) {
            ("image", Some(f)) => (f / 25.0).min(input_s),
            _ => self.limit_s.map_or(input_s, |t| t.min(input_s)),
        }
    }
}

/// Speeds (media seconds per wall second, 720p, one core) to start from.
fn default_speed(codec: &str, preset: &str) -> f64 {
    match codec {
        "libx264" | "h264" => match preset {
            "ultrafast" => 12.0,
            "superfast" => 9.0,
            "veryfast" => 7.0,
            "faster" => 5.0,
            "fast" => 4.0,
            "slow" => 1.5,
            "slower" => 0.8,
            "veryslow" => 0.4,
            _ => 3.0,
        },
        "libx265" | "hevc" => 0.6,
        "libvpx-vp9" | "vp9" => 0.5,
        "libvpx" | "vp8" => 2.0,
        "libsvtav1" => 1.0,
        "libaom-av1" | "av1" => 0.1,
        "mpeg4" | "mjpeg" | "prores" | "prores_ks" => 8.0,
        _ => 2.0,
    }
}

fn bucket(height: u32) -> u32 {
    [240, 360, 480, 720, 1080, 1440, 2160]
        .into_iter()
        .find(|b| height <= *b)
        .unwrap_or(4320)
}

/// The output height a `-s WxH` or a literal `scale=W:H` sets, when it is a plain number.
fn output_height(opts: &[String]) -> Option<u32> {
    if let Some(w) = opts.windows(2).find(|w| w[0] == "-s") {
        return w[1].split_once('x').and_then(|(_, h)| h.parse().ok());
    }
    let graph = opts
        .windows(2)
        .find(|w| matches!(w[0].as_str(), "-vf" | "-filter:v"))?;
    let args = graph[1].split("scale=").nth(1)?;
    let args = args.split([',', ';', '[']).next()?;
    let height = args
        .split(':')
        .find_map(|p| p.strip_prefix("h="))
        .or_else(|| args.split(':').nth(1).filter(|p| !p.contains('=')))?;
    height
        .parse::<i64>()
        .ok()
        .filter(|h| *h > 0)
        .map(|h| h as u32)
}

/// `2M`, `800k`, `128000` in bits per second.
fn bits_per_second(v: &str) -> Option<f64> {
    let (num, mult) = match v.chars().last()? {
        'k' | 'K' => (&v[..v.len() - 1], 1e3),
        'M' | 'm' => (&v[..v.len() - 1], 1e6),
        _ => (v, 1.0),
    };
    num.parse::<f64>().ok().map(|n| n * mult)
}

/// The estimate of a resolved task (URL inputs not fetched: their size and duration unknown).
pub async fn of(state: &AppState, resolved: &Resolved) -> AppResult<Estimate> {
    let kind = kind_of(&resolved.task);
    let mut input_bytes = 0;
    let mut duration: Option<f64> = None;
    let mut unknown = 0;
    for input in &resolved.inputs {
        match &input.file {
            InputFile::Stored(file) => {
                input_bytes += file.size;
                let facts = inspect::inspect(state, &resolved.account.name, file).await;
                match facts.as_ref().and_then(inspect::duration_of) {
                    Some(d) => duration = Some(duration.map_or(d, |m: f64| m.max(d))),
                    None => unknown += 1,
                }
            }
            InputFile::Url(_) | InputFile::Bucket { .. } => unknown += 1,
        }
    }
    let input_s = duration.unwrap_or(UNKNOWN_DURATION_S);
    let media_s = kind.media_s(input_s);
    let measured = measured(state, &resolved.account.name, &kind).await?;
    let (speed, confidence, how) = match &measured {
        Some(t) => (
            t.speed,
            if t.runs >= 3 {
                Confidence::High
            } else {
                Confidence::Medium
            },
            format!(
                "{} earlier run{} of {} by this account here ({:.1}x real time)",
                t.runs,
                if t.runs == 1 { "" } else { "s" },
                kind.key,
                t.speed
            ),
        ),
        _ => (
            kind.default_speed,
            Confidence::Low,
            format!(
                "no run of {} by this account measured here yet; a default of {:.1}x real time",
                kind.key, kind.default_speed
            ),
        ),
    };
    let confidence = if unknown > 0 {
        Confidence::Low
    } else {
        confidence
    };
    let time_sec = media_s / speed;
    let (output_bytes, size_how) = match (kind.bitrate, &measured) {
        (Some(bps), _) => (bps / 8.0 * media_s, "the bitrates asked for"),
        (None, Some(t)) if t.out_bytes_per_s > 0.0 => {
            (t.out_bytes_per_s * media_s, "the bytes per second measured")
        }
        _ => (
            input_bytes as f64 * (media_s / input_s).min(1.0) * 0.5,
            "half the input's bytes per second (a guess)",
        ),
    };
    let mut basis = format!("{media_s:.1} s of media at {how}; output size from {size_how}");
    if unknown > 0 {
        basis.push_str(&format!(
            "; {unknown} input(s) of unknown duration (URL inputs are not fetched for an estimate){}",
            if duration.is_none() {
                format!(", {UNKNOWN_DURATION_S} s assumed")
            } else {
                String::new()
            }
        ));
    }
    Ok(Estimate::new(
        time_sec,
        input_bytes,
        output_bytes.round() as u64,
        confidence,
        basis,
    ))
}

/// What this installation measured of `account`'s runs of `kind`, when it has. The account's
/// own runs only: another tenant's would tell it what that tenant runs.
async fn measured(state: &AppState, account: &str, kind: &Kind) -> AppResult<Option<Throughput>> {
    let kept = state
        .db
        .throughput(&throughput_key(account, &kind.key))
        .await?;
    Ok(kept.filter(|t| t.runs > 0 && t.speed > 0.0))
}

/// Media seconds per wall second of one run of `kind` for `account`: measured, else the kind's
/// default.
pub async fn speed(state: &AppState, account: &str, kind: &Kind) -> AppResult<f64> {
    Ok(measured(state, account, kind)
        .await?
        .map_or(kind.default_speed, |t| t.speed))
}

/// Where an account's measurements of a kind are kept: per account, so one tenant's estimates
/// never show another's activity (issue #32).
fn throughput_key(account: &str, kind: &str) -> String {
    format!("{account}/{kind}")
}

/// Keeps what a finished run of `account` measured for its next estimates of the kind (in the
/// background: a run never waits for it).
pub fn record(
    state: &Arc<AppState>,
    account: &str,
    task: &Task,
    media_s: f64,
    elapsed: Duration,
    output_bytes: u64,
) {
    let wall = elapsed.as_secs_f64();
    if media_s <= 0.0 || wall <= 0.0 {
        return;
    }
    let kind = throughput_key(account, &kind_of(task).key);
    let state = state.clone();
    tokio::spawn(async move {
        let sample = Throughput {
            runs: 1,
            speed: media_s / wall,
            out_bytes_per_s: output_bytes as f64 / media_s,
        };
        if let Err(e) = state.db.record_throughput(&kind, &sample).await {
            tracing::debug!("throughput of {kind} not kept: {e}");
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task::TaskOutput;

    fn task(file: &str, options: &[&str]) -> Task {
        Task {
            inputs: vec![],
            outputs: vec![TaskOutput {
                file: file.into(),
                options: options.iter().map(|s| s.to_string()).collect(),
                maps: vec![],
            }],
            filter_complex: None,
            output_dir_id: None,
            cache: true,
            split: true,
            export: None,
        }
    }

    #[test]
    fn kinds_read_from_the_options() {
        let k = kind_of(&task(
            "a.mp4",
            &["-c:v", "libx264", "-preset", "fast", "-vf", "scale=-2:720"],
        ));
        assert_eq!(k.key, "libx264/fast/720");
        assert_eq!(
            kind_of(&task("a.mp4", &["-vf", "scale=w=640:h=360"])).key,
            "libx264/medium/360"
        );
        assert_eq!(kind_of(&task("a.webm", &[])).key, "libvpx-vp9/medium/src");
        assert_eq!(kind_of(&task("t.png", &["-frames:v", "1"])).key, "image");
        assert_eq!(kind_of(&task("a.mp3", &[])).key, "audio");
        assert_eq!(kind_of(&task("a.mkv", &["-c", "copy"])).key, "copy");
        let k = kind_of(&task("a.mp4", &["-b:v", "2M", "-b:a", "128k", "-t", "5"]));
        assert_eq!(k.bitrate, Some(2_128_000.0));
        assert_eq!(k.media_s(30.0), 5.0);
    }
}
