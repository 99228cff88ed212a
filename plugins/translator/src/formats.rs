//! Output formats and encoders: which codecs a container holds (so a stream can be copied),
//! which encoder it gets by default, and each encoder's options. Keys match the `$fmt`,
//! `$vcodec` and `$acodec` value words of `grammar/lexicon.txt`.

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    Video,
    Audio,
    Image,
    Gif,
}

#[derive(Debug)]
pub struct Format {
    pub key: &'static str,
    pub ext: &'static str,
    pub kind: Kind,
    /// ffprobe codec names this container holds, for stream copy.
    pub vcodecs: &'static [&'static str],
    pub acodecs: &'static [&'static str],
    /// Default encoders (keys of [`VIDEO_ENCODERS`] and [`AUDIO_ENCODERS`]).
    pub venc: Option<&'static str>,
    pub aenc: Option<&'static str>,
    /// ffprobe `format_name` parts that identify an input as this format.
    pub containers: &'static [&'static str],
}

pub const FORMATS: &[Format] = &[
    Format {
        key: "mp4",
        ext: "mp4",
        kind: Kind::Video,
        vcodecs: &["h264", "hevc", "av1", "vp9", "mpeg4"],
        acodecs: &["aac", "mp3", "opus", "ac3", "alac"],
        venc: Some("h264"),
        aenc: Some("aac"),
        containers: &["mp4"],
    },
    Format {
        key: "mov",
        ext: "mov",
        kind: Kind::Video,
        vcodecs: &["h264", "hevc", "prores", "mpeg4", "mjpeg"],
        acodecs: &["aac", "mp3", "alac", "pcm_s16le", "pcm_s24le"],
        venc: Some("h264"),
        aenc: Some("aac"),
        containers: &["mov"],
    },
    Format {
        key: "mkv",
        ext: "mkv",
        kind: Kind::Video,
        vcodecs: &[
            "h264",
            "hevc",
            "vp8",
            "vp9",
            "av1",
            "prores",
            "mpeg4",
            "mjpeg",
            "mpeg2video",
            "theora",
            "ffv1",
        ],
        acodecs: &[
            "aac",
            "mp3",
            "opus",
            "vorbis",
            "flac",
            "ac3",
            "eac3",
            "alac",
            "pcm_s16le",
            "pcm_s24le",
            "dts",
        ],
        venc: Some("h264"),
        aenc: Some("aac"),
        containers: &["matroska"],
    },
    Format {
        key: "webm",
        ext: "webm",
        kind: Kind::Video,
        vcodecs: &["vp8", "vp9", "av1"],
        acodecs: &["opus", "vorbis"],
        venc: Some("vp9"),
        aenc: Some("opus"),
        containers: &["webm"],
    },
    Format {
        key: "avi",
        ext: "avi",
        kind: Kind::Video,
        vcodecs: &["h264", "mpeg4", "mjpeg"],
        acodecs: &["mp3", "pcm_s16le", "ac3"],
        venc: Some("h264"),
        aenc: Some("mp3"),
        containers: &["avi"],
    },
    Format {
        key: "ts",
        ext: "ts",
        kind: Kind::Video,
        vcodecs: &["h264", "hevc", "mpeg2video"],
        acodecs: &["aac", "mp3", "ac3"],
        venc: Some("h264"),
        aenc: Some("aac"),
        containers: &["mpegts"],
    },
    Format {
        key: "flv",
        ext: "flv",
        kind: Kind::Video,
        vcodecs: &["h264"],
        acodecs: &["aac", "mp3"],
        venc: Some("h264"),
        aenc: Some("aac"),
        containers: &["flv"],
    },
    Format {
        key: "gif",
        ext: "gif",
        kind: Kind::Gif,
        vcodecs: &[],
        acodecs: &[],
        venc: None,
        aenc: None,
        containers: &["gif"],
    },
    Format {
        key: "awebp",
        ext: "webp",
        kind: Kind::Gif,
        vcodecs: &[],
        acodecs: &[],
        venc: None,
        aenc: None,
        containers: &[],
    },
    Format {
        key: "apng",
        ext: "apng",
        kind: Kind::Gif,
        vcodecs: &[],
        acodecs: &[],
        venc: None,
        aenc: None,
        containers: &["apng"],
    },
    Format {
        key: "mp3",
        ext: "mp3",
        kind: Kind::Audio,
        vcodecs: &[],
        acodecs: &["mp3"],
        venc: None,
        aenc: Some("mp3"),
        containers: &["mp3"],
    },
    Format {
        key: "m4a",
        ext: "m4a",
        kind: Kind::Audio,
        vcodecs: &[],
        acodecs: &["aac", "alac"],
        venc: None,
        aenc: Some("aac"),
        containers: &[],
    },
    Format {
        key: "wav",
        ext: "wav",
        kind: Kind::Audio,
        vcodecs: &[],
        acodecs: &["pcm_s16le", "pcm_s24le", "pcm_f32le", "pcm_u8"],
        venc: None,
        aenc: Some("pcm"),
        containers: &["wav"],
    },
    Format {
        key: "flac",
        ext: "flac",
        kind: Kind::Audio,
        vcodecs: &[],
        acodecs: &["flac"],
        venc: None,
        aenc: Some("flac"),
        containers: &["flac"],
    },
    Format {
        key: "ogg",
        ext: "ogg",
        kind: Kind::Audio,
        vcodecs: &[],
        acodecs: &["vorbis", "opus", "flac"],
        venc: None,
        aenc: Some("vorbis"),
        containers: &["ogg"],
    },
    Format {
        key: "opus",
        ext: "opus",
        kind: Kind::Audio,
        vcodecs: &[],
        acodecs: &["opus"],
        venc: None,
        aenc: Some("opus"),
        containers: &[],
    },
    Format {
        key: "png",
        ext: "png",
        kind: Kind::Image,
        vcodecs: &["png"],
        acodecs: &[],
        venc: None,
        aenc: None,
        containers: &["png_pipe"],
    },
    Format {
        key: "jpg",
        ext: "jpg",
        kind: Kind::Image,
        vcodecs: &["mjpeg"],
        acodecs: &[],
        venc: None,
        aenc: None,
        containers: &["jpeg_pipe"],
    },
    Format {
        key: "webp",
        ext: "webp",
        kind: Kind::Image,
        vcodecs: &["webp"],
        acodecs: &[],
        venc: None,
        aenc: None,
        containers: &["webp_pipe"],
    },
    Format {
        key: "bmp",
        ext: "bmp",
        kind: Kind::Image,
        vcodecs: &["bmp"],
        acodecs: &[],
        venc: None,
        aenc: None,
        containers: &["bmp_pipe"],
    },
];

/// Animated pictures (kind `Gif`): the options after the picture chain. A GIF gets one
/// palette for the whole clip; WebP and APNG hold full colour.
pub struct Animation {
    pub key: &'static str,
    pub palette: bool,
    pub options: &'static [&'static str],
}

pub const ANIMATIONS: &[Animation] = &[
    Animation {
        key: "gif",
        palette: true,
        options: &[],
    },
    Animation {
        key: "awebp",
        palette: false,
        // The muxer's default encoder writes stills; `libwebp_anim` makes one animated file.
        options: &[
            "-c:v",
            "libwebp_anim",
            "-lossless",
            "0",
            "-q:v",
            "75",
            "-loop",
            "0",
        ],
    },
    Animation {
        key: "apng",
        palette: false,
        options: &["-plays", "0"],
    },
];

pub fn animation(key: &str) -> Option<&'static Animation> {
    ANIMATIONS.iter().find(|a| a.key == key)
}

/// Options for a single picture: the image2 muxer is told to write one file (`-update`),
/// which other muxers (webp) do not take.
pub fn single_picture_options(f: &Format) -> &'static [&'static str] {
    match f.ext {
        "webp" => &["-frames:v", "1"],
        _ => &["-frames:v", "1", "-update", "1"],
    }
}

/// Extensions that name a format another way.
const EXT_ALIASES: &[(&str, &str)] = &[
    ("jpeg", "jpg"),
    ("m4v", "mp4"),
    ("3gp", "mp4"),
    ("qt", "mov"),
    ("oga", "ogg"),
    ("aac", "m4a"),
    ("wave", "wav"),
    ("mts", "ts"),
    ("m2ts", "ts"),
];

pub fn format(key: &str) -> Option<&'static Format> {
    FORMATS.iter().find(|f| f.key == key)
}

/// The format of a file extension ("MP4", "jpeg").
pub fn by_ext(ext: &str) -> Option<&'static Format> {
    let ext = ext.to_ascii_lowercase();
    let key = EXT_ALIASES
        .iter()
        .find(|(e, _)| *e == ext)
        .map(|(_, k)| *k)
        .unwrap_or(&ext);
    format(key)
}

/// The format of an ffprobe `format_name` ("mov,mp4,m4a,3gp,3g2,mj2", "matroska,webm").
pub fn by_container(container: &str) -> Option<&'static Format> {
    let parts: Vec<&str> = container.split(',').collect();
    FORMATS
        .iter()
        .find(|f| f.containers.iter().any(|c| parts.contains(c)))
}

#[derive(Debug)]
pub struct VideoEncoder {
    pub key: &'static str,
    /// The `-c:v` value.
    pub lib: &'static str,
    /// What ffprobe calls its output.
    pub codec: &'static str,
    /// CRF for: default, "compress", "high quality"; `None` when the encoder has no CRF.
    pub crf: Option<[u32; 3]>,
    /// Extra options that go with CRF mode only (VP9/AV1 need `-b:v 0` for constant quality).
    pub crf_mode: &'static [&'static str],
    /// Speed/quality options always given.
    pub extra: &'static [&'static str],
    pub pix_fmt: &'static str,
    /// Preferred container when the input's cannot hold this codec.
    pub container: &'static str,
}

pub const VIDEO_ENCODERS: &[VideoEncoder] = &[
    VideoEncoder {
        key: "h264",
        lib: "libx264",
        codec: "h264",
        crf: Some([23, 28, 18]),
        crf_mode: &[],
        extra: &["-preset", "medium"],
        pix_fmt: "yuv420p",
        container: "mp4",
    },
    VideoEncoder {
        key: "hevc",
        lib: "libx265",
        codec: "hevc",
        crf: Some([28, 32, 22]),
        crf_mode: &[],
        extra: &["-preset", "medium"],
        pix_fmt: "yuv420p",
        container: "mp4",
    },
    VideoEncoder {
        key: "vp9",
        lib: "libvpx-vp9",
        codec: "vp9",
        crf: Some([33, 40, 24]),
        crf_mode: &["-b:v", "0"],
        // Realtime speed 6: about 7x faster than "good" at speed 4 for ~20% more bytes;
        // a service billed by compute time favours speed.
        extra: &["-deadline", "realtime", "-cpu-used", "6", "-row-mt", "1"],
        pix_fmt: "yuv420p",
        container: "webm",
    },
    VideoEncoder {
        key: "vp8",
        lib: "libvpx",
        codec: "vp8",
        crf: Some([10, 20, 6]),
        // libvpx (VP8) takes CRF as a quality floor under a bitrate ceiling.
        crf_mode: &["-b:v", "2M"],
        extra: &["-deadline", "realtime", "-cpu-used", "6"],
        pix_fmt: "yuv420p",
        container: "webm",
    },
    VideoEncoder {
        key: "av1",
        lib: "libaom-av1",
        codec: "av1",
        crf: Some([32, 40, 26]),
        crf_mode: &["-b:v", "0"],
        extra: &["-cpu-used", "8", "-row-mt", "1"],
        pix_fmt: "yuv420p",
        container: "mp4",
    },
    VideoEncoder {
        key: "prores",
        lib: "prores_ks",
        codec: "prores",
        crf: None,
        crf_mode: &[],
        extra: &[],
        pix_fmt: "yuv422p10le",
        container: "mov",
    },
];

#[derive(Debug)]
pub struct AudioEncoder {
    pub key: &'static str,
    pub lib: &'static str,
    pub codec: &'static str,
    /// Bitrate in kbit/s for: default, "compress", "high quality"; `None` for lossless.
    pub kbps: Option<[u32; 3]>,
    /// Sample rates the encoder takes, when limited (ffmpeg resamples to the first).
    pub rates: &'static [u32],
    /// The audio-only format that holds it, for "extract the audio".
    pub format: &'static str,
}

pub const AUDIO_ENCODERS: &[AudioEncoder] = &[
    AudioEncoder {
        key: "aac",
        lib: "aac",
        codec: "aac",
        kbps: Some([160, 96, 256]),
        rates: &[],
        format: "m4a",
    },
    AudioEncoder {
        key: "mp3",
        lib: "libmp3lame",
        codec: "mp3",
        kbps: Some([192, 128, 320]),
        rates: &[],
        format: "mp3",
    },
    AudioEncoder {
        key: "opus",
        lib: "libopus",
        codec: "opus",
        kbps: Some([128, 64, 192]),
        rates: &[48000, 24000, 16000, 12000, 8000],
        format: "opus",
    },
    AudioEncoder {
        key: "vorbis",
        lib: "libvorbis",
        codec: "vorbis",
        kbps: Some([160, 96, 256]),
        rates: &[],
        format: "ogg",
    },
    AudioEncoder {
        key: "flac",
        lib: "flac",
        codec: "flac",
        kbps: None,
        rates: &[],
        format: "flac",
    },
    AudioEncoder {
        key: "pcm",
        lib: "pcm_s16le",
        codec: "pcm_s16le",
        kbps: None,
        rates: &[],
        format: "wav",
    },
    AudioEncoder {
        key: "pcm24",
        lib: "pcm_s24le",
        codec: "pcm_s24le",
        kbps: None,
        rates: &[],
        format: "wav",
    },
    AudioEncoder {
        key: "pcmf32",
        lib: "pcm_f32le",
        codec: "pcm_f32le",
        kbps: None,
        rates: &[],
        format: "wav",
    },
];

pub fn video_encoder(key: &str) -> Option<&'static VideoEncoder> {
    VIDEO_ENCODERS.iter().find(|e| e.key == key)
}

pub fn audio_encoder(key: &str) -> Option<&'static AudioEncoder> {
    AUDIO_ENCODERS.iter().find(|e| e.key == key)
}

/// The encoder key producing an ffprobe codec name ("pcm_s24le" → "pcm").
pub fn audio_encoder_for_codec(codec: &str) -> Option<&'static AudioEncoder> {
    match AUDIO_ENCODERS.iter().find(|e| e.codec == codec) {
        Some(e) => Some(e),
        None if codec.starts_with("pcm_") => audio_encoder("pcm"),
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lexicon::lexicon;

    #[test]
    fn lexicon_keys_have_properties() {
        let lex = lexicon();
        for (_, key) in &lex.values["fmt"] {
            assert!(format(key).is_some(), "no format {key}");
        }
        for (_, key) in &lex.values["vcodec"] {
            assert!(video_encoder(key).is_some(), "no video encoder {key}");
        }
        for (_, key) in &lex.values["acodec"] {
            assert!(audio_encoder(key).is_some(), "no audio encoder {key}");
        }
        for f in FORMATS {
            for e in f.venc.iter() {
                assert!(video_encoder(e).is_some());
            }
            for e in f.aenc.iter() {
                assert!(audio_encoder(e).is_some());
            }
        }
    }

    #[test]
    fn recognises_inputs() {
        assert_eq!(by_container("mov,mp4,m4a,3gp,3g2,mj2").unwrap().key, "mp4");
        assert_eq!(by_container("matroska,webm").unwrap().key, "mkv");
        assert_eq!(by_ext("JPEG").unwrap().key, "jpg");
        assert_eq!(audio_encoder_for_codec("pcm_s24le").unwrap().key, "pcm24");
        assert_eq!(audio_encoder_for_codec("pcm_s32le").unwrap().key, "pcm");
    }
}
