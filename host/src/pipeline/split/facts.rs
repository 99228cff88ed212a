//! What a split encode reads of a file from its packets (one ffprobe, CSV): the first video
//! stream's keyframes, frame count and end, the first audio stream's end, and whether each
//! stream's decoding timestamps only go up. The cut is planned on the input's and the stitch is
//! checked on the output's (`verify.rs`).

use std::path::Path;

use crate::app::AppState;
use crate::error::{AppError, AppResult};
use crate::media::inspect;

#[derive(Debug, Default, Clone, PartialEq)]
pub struct Track {
    pub frames: u64,
    /// Presentation start and end (seconds): the earliest pts, the latest pts + duration.
    pub start: f64,
    pub end: f64,
    /// Whether every packet's dts is above the one before.
    pub monotonic: bool,
    /// Presentation times of keyframes, in order.
    pub keyframes: Vec<f64>,
}

impl Track {
    pub fn duration(&self) -> f64 {
        self.end - self.start.max(0.0)
    }
}

#[derive(Debug, Default, Clone, PartialEq)]
pub struct Facts {
    pub video: Option<Track>,
    pub audio: Option<Track>,
}

/// The packets of the file at `path`, read by ffprobe in the sandbox.
pub async fn read(state: &AppState, account: &str, path: &Path) -> AppResult<Facts> {
    let args = [
        "-show_entries",
        "packet=codec_type,stream_index,pts_time,dts_time,duration_time,flags",
        "-of",
        "csv=p=0",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let stdout = inspect::ffprobe(state, account, path, args)
        .await
        .ok_or_else(|| AppError::SplitCheck("ffprobe could not read the packets".into()))?;
    Ok(parse(&String::from_utf8_lossy(&stdout)))
}

/// Lines of `codec_type,stream_index,pts_time,dts_time,duration_time,flags`.
fn parse(csv: &str) -> Facts {
    let mut facts = Facts::default();
    // The stream index each kind was first seen on: later streams of a kind are not read.
    let mut chosen: [Option<&str>; 2] = [None, None];
    let mut last_dts: [Option<f64>; 2] = [None, None];
    for line in csv.lines() {
        let f: Vec<&str> = line.split(',').collect();
        if f.len() < 6 {
            continue;
        }
        let (slot, track) = match f[0] {
            "video" => (0, &mut facts.video),
            "audio" => (1, &mut facts.audio),
            _ => continue,
        };
        if *chosen[slot].get_or_insert(f[1]) != f[1] {
            continue;
        }
        let num = |s: &str| s.parse::<f64>().ok();
        let track = track.get_or_insert_with(|| Track {
            start: f64::INFINITY,
            end: f64::NEG_INFINITY,
            monotonic: true,
            ..Track::default()
        });
        // Packets the decoder discards (an encoder's priming samples) are not media.
        if f[5].contains('D') {
            continue;
        }
        track.frames += 1;
        if let Some(pts) = num(f[2]) {
            track.start = track.start.min(pts);
            track.end = track.end.max(pts + num(f[4]).unwrap_or(0.0));
            if f[5].starts_with('K') && slot == 0 {
                track.keyframes.push(pts);
            }
        }
        if let Some(dts) = num(f[3]) {
            if last_dts[slot].is_some_and(|last| dts <= last) {
                track.monotonic = false;
            }
            last_dts[slot] = Some(dts);
        }
    }
    for t in [&mut facts.video, &mut facts.audio].into_iter().flatten() {
        if t.frames == 0 {
            t.start = 0.0;
            t.end = 0.0;
        }
        t.keyframes
            .sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    }
    facts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packets_become_tracks() {
        let csv = "video,0,0.000000,-0.066667,0.033333,K_\n\
                   video,0,0.066667,-0.033333,0.033333,__\n\
                   audio,1,-0.021333,-0.021333,0.021333,KD,\n\n\
                   video,0,0.033333,0.000000,0.033333,__\n\
                   audio,1,0.000000,0.000000,0.021333,K_\n\
                   audio,2,0.000000,0.000000,5.0,K_\n\
                   video,0,0.100000,0.033333,0.033333,K_\n";
        let f = parse(csv);
        let v = f.video.unwrap();
        assert_eq!(v.frames, 4);
        assert!(v.monotonic);
        assert_eq!(v.keyframes, vec![0.0, 0.1]);
        assert!((v.end - 0.133333).abs() < 1e-6);
        let a = f.audio.unwrap();
        assert_eq!(
            a.frames, 1,
            "the discarded priming packet and stream 2 are not counted"
        );
        assert!((a.end - 0.021333).abs() < 1e-6);
    }

    #[test]
    fn a_timestamp_going_back_is_seen() {
        let csv = "video,0,0.0,0.0,0.04,K_\nvideo,0,0.04,0.04,0.04,__\nvideo,0,0.08,0.04,0.04,__\n";
        assert!(!parse(csv).video.unwrap().monotonic);
    }
}
