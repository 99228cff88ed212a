//! The allow-lists, as data: which ffmpeg options, formats and filters a tenant may use, and
//! why some well-known ones are refused. Everything not listed here is refused, so adding a
//! capability means adding a row, and reviewing the policy means reading this file.

/// Where an option may appear.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Before an input's `-i`.
    Input,
    /// Before an output path.
    Output,
    Both,
    /// A global ffmpeg option: accepted in any option list and moved to the global arguments.
    Global,
    /// Accepted and dropped: the host controls it (logging, overwrite, stdin).
    Strip,
}

/// What may follow the first `:` of an option name (`-c:v`, `-metadata:s:a:0`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpecKind {
    None,
    /// A stream specifier: `v`, `a:0`, `p:1:v`, `#0x101`, `m:language:eng`.
    Stream,
    /// A metadata specifier: `g`, `s[:stream]`, `c:N`, `p:N`.
    Metadata,
}

/// How an option's value is checked.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    /// The option takes no value.
    Flag,
    /// A codec or encoder name, or `copy`.
    Codec,
    /// An identifier such as a preset, profile, pixel format or level.
    Name,
    /// Free text (metadata values, URL prefixes written into playlists); `@{name}` resolved.
    Text,
    /// A value an operator allowed through the config: letters, digits and `_.+:=,-`.
    Plain,
    Int(i64, i64),
    Number(f64, f64),
    /// `128k`, `2.5M`, `5000000`.
    Bitrate,
    /// ffmpeg time syntax; `signed` allows a leading `-`.
    Duration {
        signed: bool,
    },
    /// A frame rate: `25`, `30000/1001`, `ntsc`.
    Rate,
    /// `1280x720` or a size name such as `hd720`.
    Size,
    /// `16:9` or `1.7778`.
    Aspect,
    Enum(&'static [&'static str]),
    Flags(&'static [&'static str]),
    /// A channel layout: `stereo`, `5.1(side)`, `FL+FR`.
    ChannelLayout,
    /// `-f`: a demuxer (before an input) or a muxer (before an output) from the allow-lists.
    Format,
    /// A muxer from the allow-list, for a segmenting muxer's segments.
    SegmentFormat,
    /// A simple filter graph (`-vf`, `-af`, `-filter`).
    Filtergraph,
    /// A complex filter graph (`-filter_complex`, `-lavfi`).
    FilterComplex,
    Map,
    MapMetadata,
    MapChapters,
    /// `key=value`.
    Metadata,
    /// `key=value:key=value` for an external encoder library; no file-related keys.
    CodecParams,
    KeyFrames,
    /// A comma-separated list of allowed bitstream filters, without options.
    Bsf,
    /// A file name or numbering pattern, rewritten into the output directory.
    OutputFile,
    /// A bare file name a muxer writes next to its output (no rewriting needed).
    PlainName,
    /// `auto` or 0..=`max_threads`.
    Threads,
    /// 0..=`max_loop`, or `-1` (forever), which `task` allows only with bounded outputs.
    StreamLoop,
    /// Comma-separated durations (`-segment_times`).
    DurationList,
    /// Comma-separated frame numbers (`-segment_frames`).
    IntList,
    /// `HH:MM:SS:FF` (or with `;`/`.` before the frames).
    Timecode,
    /// A four-character code or a hex tag.
    Tag,
    /// Consumed with its value and dropped (`-loglevel info`).
    Ignored,
}

#[derive(Clone, Copy, Debug)]
pub struct OptSpec {
    /// Without the leading `-`.
    pub name: &'static str,
    pub scope: Scope,
    pub spec: SpecKind,
    pub value: Value,
    /// Muxers the option belongs to (empty: any output).
    pub muxers: &'static [&'static str],
    /// What the option does, for the dry run's decisions.
    pub what: &'static str,
}

const fn o(
    name: &'static str,
    scope: Scope,
    spec: SpecKind,
    value: Value,
    what: &'static str,
) -> OptSpec {
    OptSpec {
        name,
        scope,
        spec,
        value,
        muxers: &[],
        what,
    }
}

const fn m(
    name: &'static str,
    muxers: &'static [&'static str],
    value: Value,
    what: &'static str,
) -> OptSpec {
    OptSpec {
        name,
        scope: Scope::Output,
        spec: SpecKind::None,
        value,
        muxers,
        what,
    }
}

use Scope::{Both, Global, Input, Output, Strip};
use SpecKind::{Metadata as MetaSpec, None as NoSpec, Stream};

const MP4_FAMILY: &[&str] = &["mp4", "mov", "ipod", "ismv", "3gp", "3g2", "f4v", "psp"];
const HLS: &[&str] = &["hls"];
const DASH: &[&str] = &["dash"];
const SEGMENT: &[&str] = &["segment", "stream_segment"];
const IMAGE2: &[&str] = &["image2"];
const MP3: &[&str] = &["mp3"];

#[rustfmt::skip]
const MOVFLAGS: &[&str] = &[
    "faststart", "frag_keyframe", "empty_moov", "default_base_moof", "separate_moof",
    "frag_discont", "delay_moov", "global_sidx", "skip_sidx", "skip_trailer",
    "negative_cts_offsets", "omit_tfhd_offset", "disable_chpl", "write_colr", "write_gama",
    "use_metadata_tags", "prefer_icc", "dash", "cmaf", "isml",
];
#[rustfmt::skip]
const FFLAGS: &[&str] = &[
    "genpts", "igndts", "ignidx", "discardcorrupt", "fastseek", "nofillin", "noparse", "sortdts",
    "bitexact", "flush_packets", "autobsf", "shortest", "nobuffer",
];
/// Codec flags; `pass1`/`pass2` are left out: two-pass encoding writes log files.
#[rustfmt::skip]
const CODEC_FLAGS: &[&str] = &[
    "global_header", "cgop", "ilme", "low_delay", "gray", "bitexact", "mv4", "qpel", "aic", "loop",
    "output_corrupt", "drop_changed",
];
/// HLS flags; `append_list` (reads an old playlist), `periodic_rekey` (key files) and the
/// strftime-related ones are left out.
#[rustfmt::skip]
const HLS_FLAGS: &[&str] = &[
    "single_file", "delete_segments", "round_durations", "discont_start", "omit_endlist",
    "split_by_time", "program_date_time", "independent_segments", "iframes_only", "temp_file",
];
#[rustfmt::skip]
pub const DISPOSITIONS: &[&str] = &[
    "default", "dub", "original", "comment", "lyrics", "karaoke", "forced", "hearing_impaired",
    "visual_impaired", "clean_effects", "attached_pic", "timed_thumbnails", "captions",
    "descriptions", "metadata", "dependent", "still_image",
];
const SYNC_MODES: &[&str] = &[
    "passthrough",
    "cfr",
    "vfr",
    "drop",
    "auto",
    "-1",
    "0",
    "1",
    "2",
];

/// The allow-list of ffmpeg options. An option may appear twice with different scopes when it
/// means different things before an input and before an output (`-loop`, `-start_number`).
#[rustfmt::skip]
pub const OPTIONS: &[OptSpec] = &[
    // Codec choice and rate control.
    o("c", Both, Stream, Value::Codec, "codec"),
    o("codec", Both, Stream, Value::Codec, "codec"),
    o("vcodec", Both, NoSpec, Value::Codec, "video codec"),
    o("acodec", Both, NoSpec, Value::Codec, "audio codec"),
    o("scodec", Both, NoSpec, Value::Codec, "subtitle codec"),
    o("b", Output, Stream, Value::Bitrate, "bitrate"),
    o("ab", Output, NoSpec, Value::Bitrate, "audio bitrate"),
    o("maxrate", Output, Stream, Value::Bitrate, "maximum bitrate"),
    o("minrate", Output, Stream, Value::Bitrate, "minimum bitrate"),
    o("bufsize", Output, Stream, Value::Bitrate, "rate control buffer size"),
    o("crf", Output, Stream, Value::Number(-1.0, 63.0), "constant rate factor"),
    o("qp", Output, Stream, Value::Int(-1, 100), "constant quantizer"),
    o("qmin", Output, Stream, Value::Int(-1, 100), "minimum quantizer"),
    o("qmax", Output, Stream, Value::Int(-1, 100), "maximum quantizer"),
    o("q", Output, Stream, Value::Number(-1.0, 1000.0), "quality scale"),
    o("qscale", Output, Stream, Value::Number(-1.0, 1000.0), "quality scale"),
    o("aq", Output, NoSpec, Value::Number(-1.0, 1000.0), "audio quality"),
    o("preset", Output, Stream, Value::Name, "encoder preset"),
    o("tune", Output, Stream, Value::Name, "encoder tuning"),
    o("profile", Output, Stream, Value::Name, "codec profile"),
    o("level", Output, Stream, Value::Name, "codec level"),
    o("g", Output, Stream, Value::Int(-1, 100_000), "keyframe interval"),
    o("keyint_min", Output, Stream, Value::Int(-1, 100_000), "minimum keyframe interval"),
    o("bf", Output, Stream, Value::Int(-1, 16), "B-frames"),
    o("refs", Output, Stream, Value::Int(0, 16), "reference frames"),
    o("sc_threshold", Output, Stream, Value::Int(-1_000_000, 1_000_000), "scene-cut threshold"),
    o("rc-lookahead", Output, Stream, Value::Int(-1, 250), "rate control look-ahead"),
    o("x264-params", Output, Stream, Value::CodecParams, "libx264 parameters"),
    o("x264opts", Output, Stream, Value::CodecParams, "libx264 parameters"),
    o("x265-params", Output, Stream, Value::CodecParams, "libx265 parameters"),
    o("svtav1-params", Output, Stream, Value::CodecParams, "SVT-AV1 parameters"),
    o("row-mt", Output, Stream, Value::Int(0, 1), "row multithreading"),
    o("deadline", Output, Stream, Value::Name, "libvpx deadline"),
    o("quality", Output, Stream, Value::Name, "encoder quality"),
    o("cpu-used", Output, Stream, Value::Int(-16, 16), "libvpx/libaom speed"),
    o("speed", Output, Stream, Value::Int(-16, 16), "encoder speed"),
    o("tile-columns", Output, Stream, Value::Int(0, 6), "tile columns"),
    o("tile-rows", Output, Stream, Value::Int(0, 6), "tile rows"),
    o("frame-parallel", Output, Stream, Value::Int(0, 1), "frame parallel decoding"),
    o("lag-in-frames", Output, Stream, Value::Int(0, 70), "look-ahead frames"),
    o("auto-alt-ref", Output, Stream, Value::Int(-1, 6), "alternate reference frames"),
    o("aq-mode", Output, Stream, Value::Int(-1, 4), "adaptive quantization mode"),
    o("aq-strength", Output, Stream, Value::Number(0.0, 3.0), "adaptive quantization strength"),
    o("lossless", Output, Stream, Value::Int(0, 1), "lossless mode"),
    o("compression_level", Output, Stream, Value::Int(-1, 12), "compression level"),
    o("pix_fmt", Both, Stream, Value::Name, "pixel format"),
    o("sample_fmt", Output, Stream, Value::Name, "sample format"),
    o("color_primaries", Both, Stream, Value::Name, "colour primaries"),
    o("color_trc", Both, Stream, Value::Name, "transfer characteristics"),
    o("colorspace", Both, Stream, Value::Name, "colour space"),
    o("color_range", Both, Stream, Value::Name, "colour range"),
    o("force_key_frames", Output, Stream, Value::KeyFrames, "forced keyframes"),
    o("tag", Output, Stream, Value::Tag, "codec tag"),
    o("vtag", Output, NoSpec, Value::Tag, "video codec tag"),
    o("atag", Output, NoSpec, Value::Tag, "audio codec tag"),
    o("strict", Both, Stream, Value::Name, "standards compliance"),
    o("flags", Both, Stream, Value::Flags(CODEC_FLAGS), "codec flags"),
    o("threads", Both, Stream, Value::Threads, "codec threads"),
    o("bsf", Output, Stream, Value::Bsf, "bitstream filters"),
    o("vbr", Output, Stream, Value::Name, "variable bitrate mode"),
    o("application", Output, Stream, Value::Name, "Opus application"),
    o("frame_duration", Output, Stream, Value::Number(2.5, 120.0), "Opus frame duration"),
    o("cutoff", Output, Stream, Value::Int(0, 192_000), "audio cutoff frequency"),
    // Video geometry and timing.
    o("r", Both, Stream, Value::Rate, "frame rate"),
    o("fpsmax", Output, Stream, Value::Rate, "maximum frame rate"),
    o("framerate", Input, NoSpec, Value::Rate, "input frame rate"),
    o("fps_mode", Output, Stream, Value::Enum(SYNC_MODES), "frame rate mode"),
    o("vsync", Global, NoSpec, Value::Enum(SYNC_MODES), "video sync method"),
    o("s", Both, Stream, Value::Size, "frame size"),
    o("video_size", Input, NoSpec, Value::Size, "input frame size"),
    o("pixel_format", Input, NoSpec, Value::Name, "input pixel format"),
    o("aspect", Output, Stream, Value::Aspect, "display aspect ratio"),
    // Filters.
    o("vf", Output, NoSpec, Value::Filtergraph, "video filter graph"),
    o("af", Output, NoSpec, Value::Filtergraph, "audio filter graph"),
    o("filter", Output, Stream, Value::Filtergraph, "filter graph"),
    o("filter_complex", Global, NoSpec, Value::FilterComplex, "complex filter graph"),
    o("lavfi", Global, NoSpec, Value::FilterComplex, "complex filter graph"),
    // Time.
    o("ss", Both, NoSpec, Value::Duration { signed: false }, "start time"),
    o("t", Both, NoSpec, Value::Duration { signed: false }, "duration"),
    o("to", Both, NoSpec, Value::Duration { signed: false }, "end time"),
    o("sseof", Input, NoSpec, Value::Duration { signed: true }, "start time from the end"),
    o("itsoffset", Input, NoSpec, Value::Duration { signed: true }, "input time offset"),
    o("frames", Output, Stream, Value::Int(0, 100_000_000), "frame count"),
    o("vframes", Output, NoSpec, Value::Int(0, 100_000_000), "video frame count"),
    o("aframes", Output, NoSpec, Value::Int(0, 100_000_000), "audio frame count"),
    o("stream_loop", Input, NoSpec, Value::StreamLoop, "input repeat count"),
    o("re", Input, NoSpec, Value::Flag, "read at native rate"),
    o("readrate", Input, NoSpec, Value::Number(0.0, 100.0), "read rate"),
    o("copyts", Global, NoSpec, Value::Flag, "copy timestamps"),
    o("start_at_zero", Global, NoSpec, Value::Flag, "shift timestamps to zero"),
    o("copytb", Global, NoSpec, Value::Int(-1, 1), "copy time base"),
    o("accurate_seek", Input, NoSpec, Value::Flag, "accurate seeking"),
    o("noaccurate_seek", Input, NoSpec, Value::Flag, "fast seeking"),
    o("seek_timestamp", Input, NoSpec, Value::Flag, "seek by timestamp"),
    o("shortest", Output, NoSpec, Value::Flag, "stop at the shortest stream"),
    o("avoid_negative_ts", Output, NoSpec, Value::Enum(&["auto", "disabled", "make_non_negative", "make_zero", "-1", "0", "1", "2"]), "timestamp shifting"),
    o("max_muxing_queue_size", Output, Stream, Value::Int(1, 65_536), "muxing queue size"),
    o("max_interleave_delta", Output, NoSpec, Value::Int(0, 100_000_000), "interleaving delay"),
    o("muxdelay", Output, NoSpec, Value::Number(0.0, 60.0), "muxing delay"),
    o("muxpreload", Output, NoSpec, Value::Number(0.0, 60.0), "muxing preload"),
    o("timecode", Output, NoSpec, Value::Timecode, "start timecode"),
    o("fs", Output, NoSpec, Value::Bitrate, "file size limit"),
    // Audio.
    o("ar", Both, Stream, Value::Int(1, 768_000), "sample rate"),
    o("ac", Both, Stream, Value::Int(1, 64), "channel count"),
    o("channel_layout", Both, Stream, Value::ChannelLayout, "channel layout"),
    o("sample_rate", Input, NoSpec, Value::Int(1, 768_000), "input sample rate"),
    o("channels", Input, NoSpec, Value::Int(1, 64), "input channel count"),
    o("guess_layout_max", Input, NoSpec, Value::Int(-1, 64), "channel layout guessing"),
    // Stream selection.
    o("an", Both, NoSpec, Value::Flag, "no audio"),
    o("vn", Both, NoSpec, Value::Flag, "no video"),
    o("sn", Both, NoSpec, Value::Flag, "no subtitles"),
    o("dn", Both, NoSpec, Value::Flag, "no data streams"),
    o("map", Output, NoSpec, Value::Map, "stream mapping"),
    o("map_metadata", Output, MetaSpec, Value::MapMetadata, "metadata mapping"),
    o("map_chapters", Output, NoSpec, Value::MapChapters, "chapter mapping"),
    o("metadata", Output, MetaSpec, Value::Metadata, "metadata"),
    o("disposition", Output, Stream, Value::Flags(DISPOSITIONS), "stream disposition"),
    // Formats and demuxer settings.
    o("f", Both, NoSpec, Value::Format, "format"),
    o("fflags", Both, NoSpec, Value::Flags(FFLAGS), "format flags"),
    o("pattern_type", Input, NoSpec, Value::Enum(&["sequence", "none"]), "image pattern type"),
    o("start_number", Input, NoSpec, Value::Int(0, 1_000_000_000), "first image number"),
    o("loop", Input, NoSpec, Value::Enum(&["0", "1"]), "loop the image"),
    o("autorotate", Input, NoSpec, Value::Flag, "apply rotation metadata"),
    o("noautorotate", Input, NoSpec, Value::Flag, "ignore rotation metadata"),
    o("thread_queue_size", Input, NoSpec, Value::Int(1, 65_536), "input queue size"),
    o("ignore_editlist", Input, NoSpec, Value::Int(0, 1), "ignore MP4 edit lists"),
    o("analyzeduration", Input, NoSpec, Value::Int(0, 60_000_000), "analysis time (microseconds)"),
    o("probesize", Input, NoSpec, Value::Int(32, 52_428_800), "probe size (bytes)"),
    // Muxer settings.
    m("movflags", MP4_FAMILY, Value::Flags(MOVFLAGS), "MP4 flags"),
    m("brand", MP4_FAMILY, Value::Name, "MP4 major brand"),
    m("frag_duration", MP4_FAMILY, Value::Int(0, 3_600_000_000), "fragment duration"),
    m("min_frag_duration", MP4_FAMILY, Value::Int(0, 3_600_000_000), "minimum fragment duration"),
    m("frag_size", MP4_FAMILY, Value::Int(0, 1_000_000_000), "fragment size"),
    m("start_number", &["image2", "hls"], Value::Int(0, 1_000_000_000), "first file number"),
    m("update", IMAGE2, Value::Int(0, 1), "overwrite a single image"),
    m("frame_pts", IMAGE2, Value::Int(0, 1), "number images by timestamp"),
    m("loop", &["gif", "webp"], Value::Int(-1, 65_535), "animation loop count"),
    m("plays", &["apng"], Value::Int(0, 65_535), "animation play count"),
    m("final_delay", &["gif"], Value::Int(-1, 65_535), "final frame delay"),
    m("id3v2_version", MP3, Value::Int(0, 4), "ID3v2 version"),
    m("write_id3v1", MP3, Value::Int(0, 1), "ID3v1 tag"),
    m("write_xing", MP3, Value::Int(0, 1), "Xing header"),
    m("hls_time", HLS, Value::Duration { signed: false }, "HLS segment length"),
    m("hls_init_time", HLS, Value::Duration { signed: false }, "first HLS segment length"),
    m("hls_list_size", HLS, Value::Int(0, 1_000_000), "HLS playlist size"),
    m("hls_delete_threshold", HLS, Value::Int(1, 1_000_000), "HLS deletion threshold"),
    m("hls_segment_filename", HLS, Value::OutputFile, "HLS segment names"),
    m("hls_segment_type", HLS, Value::Enum(&["mpegts", "fmp4"]), "HLS segment container"),
    m("hls_fmp4_init_filename", HLS, Value::PlainName, "HLS init segment name"),
    m("hls_playlist_type", HLS, Value::Enum(&["event", "vod"]), "HLS playlist type"),
    m("hls_flags", HLS, Value::Flags(HLS_FLAGS), "HLS flags"),
    m("hls_base_url", HLS, Value::Text, "URL prefix written into the playlist"),
    m("hls_allow_cache", HLS, Value::Int(-1, 1), "HLS cache hint"),
    m("master_pl_name", HLS, Value::PlainName, "HLS master playlist name"),
    m("seg_duration", DASH, Value::Duration { signed: false }, "DASH segment length"),
    m("use_template", DASH, Value::Int(0, 1), "DASH SegmentTemplate"),
    m("use_timeline", DASH, Value::Int(0, 1), "DASH SegmentTimeline"),
    m("single_file", DASH, Value::Int(0, 1), "DASH single file per representation"),
    m("adaptation_sets", DASH, Value::Text, "DASH adaptation sets (stream indexes)"),
    m("dash_segment_type", DASH, Value::Enum(&["auto", "mp4", "webm"]), "DASH segment container"),
    m("frag_type", DASH, Value::Enum(&["none", "every_frame", "duration", "pframes"]), "DASH fragments"),
    m("hls_playlist", DASH, Value::Int(0, 1), "HLS playlists beside the MPD"),
    m("segment_time", SEGMENT, Value::Duration { signed: false }, "segment length"),
    m("segment_time_delta", SEGMENT, Value::Duration { signed: false }, "segment time tolerance"),
    m("segment_times", SEGMENT, Value::DurationList, "segment split times"),
    m("segment_frames", SEGMENT, Value::IntList, "segment split frames"),
    m("segment_format", SEGMENT, Value::SegmentFormat, "segment container"),
    m("segment_list", SEGMENT, Value::OutputFile, "segment list file"),
    m("segment_list_type", SEGMENT, Value::Enum(&["flat", "csv", "ext", "ffconcat", "m3u8"]), "segment list type"),
    m("segment_list_size", SEGMENT, Value::Int(0, 1_000_000), "segment list size"),
    m("segment_start_number", SEGMENT, Value::Int(0, 1_000_000_000), "first segment number"),
    m("segment_wrap", SEGMENT, Value::Int(0, 1_000_000), "segment number wrap"),
    m("segment_atclocktime", SEGMENT, Value::Int(0, 1), "split at clock time"),
    m("break_non_keyframes", SEGMENT, Value::Int(0, 1), "split at non-keyframes"),
    m("reset_timestamps", SEGMENT, Value::Int(0, 1), "reset segment timestamps"),
    m("increment_tc", SEGMENT, Value::Int(0, 1), "increment timecode"),
    m("individual_header_trailer", SEGMENT, Value::Int(0, 1), "per-segment headers"),
    m("write_header_trailer", SEGMENT, Value::Int(0, 1), "segment header and trailer"),
    // Things the host controls: accepted for compatibility and dropped.
    o("y", Strip, NoSpec, Value::Flag, "the host decides about overwriting"),
    o("n", Strip, NoSpec, Value::Flag, "the host decides about overwriting"),
    o("hide_banner", Strip, NoSpec, Value::Flag, "the host controls logging"),
    o("nostdin", Strip, NoSpec, Value::Flag, "the host controls stdin"),
    o("stats", Strip, NoSpec, Value::Flag, "the host controls logging"),
    o("nostats", Strip, NoSpec, Value::Flag, "the host controls logging"),
    o("loglevel", Strip, NoSpec, Value::Ignored, "the host controls logging"),
    o("v", Strip, NoSpec, Value::Ignored, "the host controls logging"),
];

/// The extension of a concat list the host has read, checked and rewritten into the job (every
/// entry one of the task's other inputs; host/src/pipeline/concat.rs). Only such an input may
/// be read with the concat demuxer, and take `-safe`.
pub const CONCAT_LIST_EXT: &str = ".ffconcat";

/// `-safe` on a host-rewritten concat list: harmless there (its entries are staged files), and
/// what clients of the concat demuxer send.
pub const CONCAT_SAFE: OptSpec = o(
    "safe",
    Scope::Input,
    SpecKind::None,
    Value::Enum(&["0", "1"]),
    "concat demuxer's path check (the host rewrote the list to the task's inputs)",
);

/// Options that a tenant might reasonably try and that are refused, with the reason shown to
/// them. Also the options an operator cannot allow through the config. Names ending in `*` are
/// prefixes.
#[rustfmt::skip]
pub const REFUSED_OPTIONS: &[(&str, &str)] = &[
    ("i", "inputs are given as the task's inputs, not inside options"),
    ("filter_script", "it reads the filter graph from a file"),
    ("filter_complex_script", "it reads the filter graph from a file"),
    ("fpre", "it reads a preset file"),
    ("vpre", "it reads a preset file"),
    ("apre", "it reads a preset file"),
    ("spre", "it reads a preset file"),
    ("pre", "it reads a preset file"),
    ("report", "it writes a log file"),
    ("attach", "it attaches a file from the host's file system"),
    ("dump_attachment", "it writes files named by the input"),
    ("pass", "two-pass encoding writes log files outside the output directory"),
    ("passlogfile", "it writes a log file"),
    ("vstats", "it writes a statistics file"),
    ("vstats_file", "it writes a statistics file"),
    ("vstats_version", "it belongs to -vstats, which writes a file"),
    ("sdp_file", "it writes a file"),
    ("progress", "it writes progress to a file or URL"),
    ("stats_*", "it writes a statistics file"),
    ("protocol_whitelist", "the host controls which protocols ffmpeg may use"),
    ("protocol_blacklist", "the host controls which protocols ffmpeg may use"),
    ("safe", "it switches off the concat demuxer's path check, and only a concat list the host read (given -f concat, or named *.ffconcat) takes it"),
    ("allowed_extensions", "it switches off the HLS demuxer's file extension check"),
    ("allowed_segment_extensions", "it switches off the HLS demuxer's file extension check"),
    ("hls_key_info_file", "it reads a key file"),
    ("key_info_file", "it reads a key file"),
    ("strftime", "it names files by date instead of by number"),
    ("ignore_unknown", "it would hide mistakes in the option list"),
    ("init_hw_device", "it opens host devices"),
    ("filter_hw_device", "it opens host devices"),
    ("hwaccel", "it opens host devices"),
    ("hwaccel_device", "it opens host devices"),
    ("vaapi_device", "it opens host devices"),
    ("qsv_device", "it opens host devices"),
    ("headers", "inputs are downloaded by the host, not by ffmpeg"),
    ("user_agent", "inputs are downloaded by the host, not by ffmpeg"),
    ("cookies", "inputs are downloaded by the host, not by ffmpeg"),
    ("method", "outputs are written to files, not uploaded by ffmpeg"),
    ("http_proxy", "ffmpeg may not reach the network"),
    ("listen", "ffmpeg may not reach the network"),
    ("timelimit", "the host enforces time limits"),
    ("benchmark", "the host controls logging"),
    ("benchmark_all", "the host controls logging"),
    ("debug_ts", "the host controls logging"),
    ("dump", "the host controls logging"),
    ("hex", "the host controls logging"),
    ("var_stream_map", "variant streams are not supported; run one output per rendition"),
    ("segment_format_options", "nested muxer options cannot be checked"),
    ("hls_segment_options", "nested muxer options cannot be checked"),
    ("format_opts", "nested options cannot be checked"),
    ("init_seg_name", "DASH segment names are the muxer's own"),
    ("media_seg_name", "DASH segment names are the muxer's own"),
    ("single_file_name", "DASH segment names are the muxer's own"),
];

/// Finds why a known-dangerous option is refused.
pub fn refused_option(base: &str) -> Option<&'static str> {
    REFUSED_OPTIONS.iter().find_map(|(name, why)| {
        let hit = match name.strip_suffix('*') {
            Some(prefix) => base.starts_with(prefix),
            None => *name == base,
        };
        hit.then_some(*why)
    })
}

/// Demuxers a tenant may force with `-f` before an input. All read one self-contained file.
#[rustfmt::skip]
pub const DEMUXERS: &[&str] = &[
    "mov", "mp4", "m4a", "3gp", "3g2", "mj2", "matroska", "webm", "avi", "flv", "mpegts", "mpeg",
    "mxf", "nut", "ogg", "asf", "dv", "mp3", "aac", "ac3", "eac3", "dts", "truehd", "mlp", "flac",
    "wav", "w64", "aiff", "caf", "wv", "ape", "tta", "amr", "gif", "apng", "image2", "image2pipe",
    "png_pipe", "jpeg_pipe", "webp_pipe", "bmp_pipe", "tiff_pipe", "h264", "hevc", "m4v", "mjpeg",
    "mpegvideo", "vc1", "av1", "obu", "ivf", "rawvideo", "yuv4mpegpipe", "srt", "webvtt", "ass",
    "s16le", "s16be", "s24le", "s32le", "f32le", "f32be", "f64le", "u8", "alaw", "mulaw", "data",
];

/// Demuxers refused with a specific reason (everything else unlisted gets a generic one).
#[rustfmt::skip]
pub const REFUSED_DEMUXERS: &[(&str, &str)] = &[
    ("hls", "it follows the playlist's references to other files and URLs, which cannot be confined to the staged input"),
    ("applehttp", "it follows the playlist's references to other files and URLs, which cannot be confined to the staged input"),
    ("dash", "it follows the manifest's references to other files and URLs, which cannot be confined to the staged input"),
    ("concat", "it reads the files named in the list, and only a list the host has read and checked may be read this way"),
    ("imf", "it reads the files named in the composition, which cannot be confined to the staged input"),
    ("webm_dash_manifest", "it reads the files named in the manifest, which cannot be confined to the staged input"),
    ("vobsub", "it reads a second file next to the input"),
    ("lavfi", "it reads a filter graph instead of the staged file; use a source filter such as color, testsrc or sine in filter_complex"),
    ("tty", "it renders the file's bytes as text"),
    ("bin", "it renders the file's bytes as text"),
    ("ffmetadata", "it is not a media format"),
    ("sdp", "it opens network connections"),
    ("rtp", "it opens network connections"),
    ("rtsp", "it opens network connections"),
    ("sap", "it opens network connections"),
    ("alsa", "it reads a host device"),
    ("video4linux2", "it reads a host device"),
    ("v4l2", "it reads a host device"),
    ("x11grab", "it reads a host device"),
    ("kmsgrab", "it reads a host device"),
    ("fbdev", "it reads a host device"),
    ("jack", "it reads a host device"),
    ("oss", "it reads a host device"),
    ("pulse", "it reads a host device"),
    ("openal", "it reads a host device"),
    ("iec61883", "it reads a host device"),
    ("libdc1394", "it reads a host device"),
    ("libcdio", "it reads a host device"),
];

/// Muxers a tenant may choose with `-f` (or through the output's extension), and the extensions
/// ffmpeg guesses each from. Segmenting muxers (`hls`, `segment`) write only inside the output
/// directory because every file name they take is checked and rewritten.
#[rustfmt::skip]
pub const MUXERS: &[(&str, &[&str])] = &[
    ("mp4", &["mp4"]),
    ("mov", &["mov"]),
    ("ipod", &["m4a", "m4b", "m4v"]),
    ("ismv", &["ismv", "isma"]),
    ("3gp", &["3gp"]),
    ("3g2", &["3g2"]),
    ("f4v", &["f4v"]),
    ("psp", &["psp"]),
    ("matroska", &["mkv", "mka"]),
    ("webm", &["webm"]),
    ("avi", &["avi"]),
    ("flv", &["flv"]),
    ("mpegts", &["ts", "m2t", "m2ts", "mts"]),
    ("mpeg", &["mpg", "mpeg"]),
    ("vob", &["vob"]),
    ("dvd", &["dvd"]),
    ("mxf", &["mxf"]),
    ("nut", &["nut"]),
    ("asf", &["asf", "wmv", "wma"]),
    ("ogg", &["ogg"]),
    ("oga", &["oga"]),
    ("ogv", &["ogv"]),
    ("opus", &["opus"]),
    ("spx", &["spx"]),
    ("mp3", &["mp3"]),
    ("mp2", &["mp2", "m2a", "mpa"]),
    ("adts", &["aac", "adts"]),
    ("ac3", &["ac3"]),
    ("eac3", &["eac3"]),
    ("dts", &["dts"]),
    ("truehd", &["thd"]),
    ("flac", &["flac"]),
    ("wav", &["wav"]),
    ("w64", &["w64"]),
    ("aiff", &["aif", "aiff", "aifc"]),
    ("caf", &["caf"]),
    ("wv", &["wv"]),
    ("tta", &["tta"]),
    ("amr", &["amr"]),
    ("gif", &["gif"]),
    ("apng", &["apng"]),
    ("webp", &["webp"]),
    ("avif", &["avif"]),
    ("image2", &["png", "jpg", "jpeg", "bmp", "tif", "tiff", "ppm", "pgm", "pbm", "tga", "jxl", "qoi", "dpx", "exr", "jp2", "j2k"]),
    ("image2pipe", &[]),
    ("mjpeg", &["mjpg", "mjpeg"]),
    ("h264", &["h264", "264"]),
    ("hevc", &["hevc", "h265", "265"]),
    ("m4v", &[]),
    ("obu", &["obu"]),
    ("ivf", &["ivf"]),
    ("rawvideo", &["yuv", "rgb"]),
    ("yuv4mpegpipe", &["y4m"]),
    ("srt", &["srt"]),
    ("webvtt", &["vtt"]),
    ("ass", &["ass", "ssa"]),
    ("ttml", &["ttml"]),
    ("hls", &["m3u8"]),
    // Its segment names are the muxer's own (`init-stream…`, `chunk-stream…`, next to the
    // manifest): the options that would rename them stay refused.
    ("dash", &["mpd"]),
    ("segment", &[]),
    ("stream_segment", &[]),
    ("ssegment", &[]),
    ("null", &[]),
    ("md5", &["md5"]),
    ("framemd5", &[]),
    ("hash", &[]),
    ("framehash", &[]),
    ("crc", &[]),
    ("framecrc", &[]),
    ("streamhash", &[]),
    ("ffmetadata", &["ffmeta"]),
    ("s16le", &[]),
    ("s16be", &[]),
    ("s24le", &[]),
    ("s32le", &[]),
    ("f32le", &[]),
    ("f32be", &[]),
    ("u8", &[]),
    ("alaw", &[]),
    ("mulaw", &[]),
];

/// Muxers refused with a specific reason.
#[rustfmt::skip]
pub const REFUSED_MUXERS: &[(&str, &str)] = &[
    ("tee", "it writes to several destinations named in its own syntax"),
    ("fifo", "it wraps another muxer and destination"),
    ("webm_chunk", "its chunk names are not confined to the output directory"),
    ("webm_dash_manifest", "it reads other files"),
    ("hds", "it writes to a directory structure of its own"),
    ("smoothstreaming", "it writes to a directory structure of its own"),
    ("rtp", "it sends to the network"),
    ("rtp_mpegts", "it sends to the network"),
    ("rtsp", "it sends to the network"),
    ("sap", "it sends to the network"),
    ("udp", "it sends to the network"),
    ("alsa", "it writes to a host device"),
    ("sdl", "it writes to a host device"),
    ("sdl2", "it writes to a host device"),
    ("xv", "it writes to a host device"),
    ("opengl", "it writes to a host device"),
    ("fbdev", "it writes to a host device"),
    ("v4l2", "it writes to a host device"),
    ("video4linux2", "it writes to a host device"),
    ("oss", "it writes to a host device"),
    ("pulse", "it writes to a host device"),
    ("caca", "it writes to a host device"),
    ("chromaprint", "it is not supported"),
];

/// The canonical name of an allowed muxer (`ssegment` is `stream_segment`).
pub fn canonical_muxer(name: &str) -> &str {
    match name {
        "ssegment" => "stream_segment",
        other => other,
    }
}

/// The muxer ffmpeg would pick for an output name's extension, among the allowed ones.
pub fn muxer_for_extension(ext: &str) -> Option<&'static str> {
    let ext = ext.to_ascii_lowercase();
    MUXERS
        .iter()
        .find(|(_, exts)| exts.contains(&ext.as_str()))
        .map(|(name, _)| *name)
}

/// Bitstream filters allowed in `-bsf` (names only: their options are not parsed).
#[rustfmt::skip]
pub const BSFS: &[&str] = &[
    "aac_adtstoasc", "h264_mp4toannexb", "hevc_mp4toannexb", "extract_extradata", "dump_extra",
    "remove_extra", "vp9_superframe", "vp9_superframe_split", "mpeg4_unpack_bframes",
    "av1_frame_split", "av1_frame_merge", "chomp", "null", "setts",
];

/// Keys refused in `-x264-params` and its kin: they read or write files or run multi-pass
/// encoding (which writes statistics files). Any key containing one of `CODEC_PARAM_FILE_WORDS`
/// is refused as well.
#[rustfmt::skip]
pub const CODEC_PARAM_KEYS_REFUSED: &[&str] = &[
    "pass", "qpfile", "cqmfile", "scaling-list", "dhdr10-info", "zonefile", "zones-file", "input",
    "output", "recon", "tcfile-in", "tcfile-out", "fgs-table", "dolby-vision-rpu",
    "master-display-file",
];
pub const CODEC_PARAM_FILE_WORDS: &[&str] = &[
    "file", "stats", "csv", "analysis", "dump", "recon", "log-file", "path", "dir",
];

/// Frame-size names accepted by `-s` and filter `size` options (ffmpeg's `av_parse_video_size`).
#[rustfmt::skip]
pub const SIZE_NAMES: &[(&str, u32, u32)] = &[
    ("ntsc", 720, 480),
    ("pal", 720, 576),
    ("qntsc", 352, 240),
    ("qpal", 352, 288),
    ("sntsc", 640, 480),
    ("spal", 768, 576),
    ("film", 352, 240),
    ("ntsc-film", 352, 240),
    ("sqcif", 128, 96),
    ("qcif", 176, 144),
    ("cif", 352, 288),
    ("4cif", 704, 576),
    ("16cif", 1408, 1152),
    ("qqvga", 160, 120),
    ("qvga", 320, 240),
    ("vga", 640, 480),
    ("svga", 800, 600),
    ("xga", 1024, 768),
    ("uxga", 1600, 1200),
    ("qxga", 2048, 1536),
    ("sxga", 1280, 1024),
    ("qsxga", 2560, 2048),
    ("hsxga", 5120, 4096),
    ("wvga", 852, 480),
    ("wxga", 1366, 768),
    ("wsxga", 1600, 1024),
    ("wuxga", 1920, 1200),
    ("woxga", 2560, 1600),
    ("wqhd", 2560, 1440),
    ("wqsxga", 3200, 2048),
    ("wquxga", 3840, 2400),
    ("whsxga", 6400, 4096),
    ("whuxga", 7680, 4800),
    ("cga", 320, 200),
    ("ega", 640, 350),
    ("hd480", 852, 480),
    ("hd720", 1280, 720),
    ("hd1080", 1920, 1080),
    ("quadhd", 2560, 1440),
    ("2k", 2048, 1080),
    ("2kdci", 2048, 1080),
    ("2kflat", 1998, 1080),
    ("2kscope", 2048, 858),
    ("4k", 4096, 2160),
    ("4kdci", 4096, 2160),
    ("4kflat", 3996, 2160),
    ("4kscope", 4096, 1716),
    ("nhd", 640, 360),
    ("hqvga", 240, 160),
    ("wqvga", 400, 240),
    ("fwqvga", 432, 240),
    ("hvga", 480, 320),
    ("qhd", 960, 540),
    ("uhd2160", 3840, 2160),
    ("uhd4320", 7680, 4320),
];

/// Frame-rate names accepted by `-r` and filter rate options (`av_parse_video_rate`).
#[rustfmt::skip]
pub const RATE_NAMES: &[(&str, f64)] = &[
    ("ntsc", 30000.0 / 1001.0),
    ("pal", 25.0),
    ("qntsc", 30000.0 / 1001.0),
    ("qpal", 25.0),
    ("sntsc", 30000.0 / 1001.0),
    ("spal", 25.0),
    ("film", 24.0),
    ("ntsc-film", 24000.0 / 1001.0),
];

/// Frame rates above this are refused: they only multiply work.
pub const MAX_FPS: f64 = 1000.0;

/// Limits on the size of what is parsed at all.
pub const MAX_TOKENS: usize = 512;
pub const MAX_TOKEN_LEN: usize = 8192;
pub const MAX_GRAPH_LEN: usize = 65_536;
pub const MAX_FILTERS: usize = 512;
/// Maps one output may have (`maps` and `-map` together): each mapped stream starts a decoder
/// or an encoder, so 300 maps of `0:v` would start 300 encoders.
pub const MAX_OUTPUT_STREAMS: usize = 32;
/// Frames `loop` (and `tmix`) may hold in memory; `aloop` samples.
pub const MAX_LOOP_FRAMES: i64 = 300;
pub const MAX_LOOP_SAMPLES: i64 = 10_000_000;
/// Highest sample rate assumed when bounding padding given in samples.
pub const MAX_SAMPLE_RATE: f64 = 384_000.0;

// ---------------------------------------------------------------------------------------------
// Filters.

/// A check applied to one filter option.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Check {
    /// `WxH` or a size name, each side at most `max_dimension`.
    Size,
    /// A frame rate at most `MAX_FPS` (expressions that are not plain rates pass).
    Rate,
    /// A duration of generated media, 0 to `max_duration` seconds.
    Duration,
    /// A sample count bounded like `Duration`.
    Samples,
    /// A repeat count at most `max_loop`; `forever` means "loop forever", which makes the
    /// filter endless (allowed only when every output is bounded).
    Repeat { forever: i64 },
    /// A count from 0 to the given bound; -1 (forever) refused.
    Count(i64),
    /// A frame count bounded like `Duration` at 60 fps; -1 (forever) refused.
    Frames,
    /// Must be exactly `@{name}` of one of the task's inputs.
    InputFile,
    /// A demuxer from the allow-list.
    Demuxer,
    /// Free text shown in the picture (drawtext `text`): not checked for paths.
    Text,
    /// Never allowed, with the reason.
    Refused(&'static str),
}

/// Whether a filter produces media without end unless told otherwise.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Endless {
    No,
    /// Endless unless one of these options is given.
    UnlessOneOf(&'static [&'static str]),
}

#[derive(Clone, Copy, Debug)]
pub struct FilterRule {
    pub name: &'static str,
    /// ffmpeg's option order for this filter: what positional (key-less) values mean.
    pub params: &'static [&'static str],
    /// `(alias, canonical)`.
    pub aliases: &'static [(&'static str, &'static str)],
    pub checks: &'static [(&'static str, Check)],
    pub endless: Endless,
}

const RULE: FilterRule = FilterRule {
    name: "",
    params: &[],
    aliases: &[],
    checks: &[],
    endless: Endless::No,
};

const SIZE_RATE_DURATION: &[(&str, Check)] = &[
    ("size", Check::Size),
    ("rate", Check::Rate),
    ("duration", Check::Duration),
];
const SRC_ALIASES: &[(&str, &str)] = &[("s", "size"), ("r", "rate"), ("d", "duration")];
const SRC_PARAMS: &[&str] = &["size", "rate", "duration", "sar"];
const UNTIL_DURATION: Endless = Endless::UnlessOneOf(&["duration"]);

const fn source(name: &'static str) -> FilterRule {
    FilterRule {
        name,
        params: SRC_PARAMS,
        aliases: SRC_ALIASES,
        checks: SIZE_RATE_DURATION,
        endless: UNTIL_DURATION,
    }
}

/// `metadata`/`ametadata`: printing goes to ffmpeg's log (what a recipe's analysis reads);
/// the `file` it could write to is refused.
const METADATA: FilterRule = FilterRule {
    name: "metadata",
    params: &["mode", "key", "value", "function", "expr", "file", "direct"],
    aliases: &[],
    checks: &[
        (
            "file",
            Check::Refused("it writes a file; printed metadata goes to the log"),
        ),
        ("direct", Check::Refused("it goes with file")),
    ],
    ..RULE
};

const MOVIE: FilterRule = FilterRule {
    name: "movie",
    params: &[
        "filename",
        "format_name",
        "stream_index",
        "seek_point",
        "streams",
        "loop",
        "discontinuity",
        "dec_threads",
        "format_opts",
    ],
    aliases: &[
        ("f", "format_name"),
        ("si", "stream_index"),
        ("sp", "seek_point"),
        ("s", "streams"),
    ],
    checks: &[
        ("filename", Check::InputFile),
        ("format_name", Check::Demuxer),
        ("loop", Check::Repeat { forever: 0 }),
        ("dec_threads", Check::Count(64)),
        (
            "format_opts",
            Check::Refused("nested demuxer options cannot be checked"),
        ),
    ],
    ..RULE
};

const SUBTITLES: FilterRule = FilterRule {
    name: "subtitles",
    params: &[
        "filename",
        "original_size",
        "fontsdir",
        "alpha",
        "charenc",
        "stream_index",
        "force_style",
    ],
    aliases: &[("f", "filename"), ("si", "stream_index")],
    checks: &[
        ("filename", Check::InputFile),
        ("original_size", Check::Size),
        (
            "fontsdir",
            Check::Refused("it reads fonts from a host directory"),
        ),
        ("force_style", Check::Text),
    ],
    ..RULE
};

/// Sources: filters without inputs (a chain may start with them without a label).
#[rustfmt::skip]
pub const SOURCE_FILTERS: &[&str] = &[
    "color", "testsrc", "testsrc2", "smptebars", "smptehdbars", "rgbtestsrc", "yuvtestsrc",
    "pal75bars", "pal100bars", "nullsrc", "anullsrc", "sine", "anoisesrc", "aevalsrc", "movie",
    "amovie",
];

/// Filters that keep their whole input in memory: allowed only on a bounded input
/// (`frames::bounded_by_inputs`).
pub const WHOLE_STREAM_BUFFERS: &[&str] = &["reverse", "areverse"];

// Frame sizes are judged in `frames::frame_size` (the rules below only name the options).
const SCALE: FilterRule = FilterRule {
    name: "scale",
    params: &["w", "h", "flags", "interl"],
    aliases: &[("width", "w"), ("height", "h"), ("s", "size")],
    ..RULE
};

const STACK: FilterRule = FilterRule {
    name: "hstack",
    params: &["inputs", "shortest"],
    ..RULE
};

const TRIM: FilterRule = FilterRule {
    name: "trim",
    params: &[
        "start",
        "end",
        "start_pts",
        "end_pts",
        "duration",
        "start_frame",
        "end_frame",
    ],
    aliases: &[
        ("starti", "start"),
        ("endi", "end"),
        ("durationi", "duration"),
    ],
    ..RULE
};

const LOOP: FilterRule = FilterRule {
    name: "loop",
    params: &["loop", "size", "start"],
    checks: &[
        ("loop", Check::Repeat { forever: -1 }),
        ("size", Check::Count(MAX_LOOP_FRAMES)),
    ],
    ..RULE
};

/// Filters with option checks. Options not named in `checks` are still checked for paths and
/// URLs, and `@{name}` placeholders in them are resolved.
pub const RULED_FILTERS: &[FilterRule] = &[
    METADATA,
    FilterRule {
        name: "ametadata",
        ..METADATA
    },
    SCALE,
    FilterRule {
        name: "scale2ref",
        ..SCALE
    },
    FilterRule {
        name: "zscale",
        params: &["w", "h", "size"],
        ..SCALE
    },
    FilterRule {
        name: "crop",
        params: &["out_w", "out_h", "x", "y", "keep_aspect", "exact"],
        aliases: &[("w", "out_w"), ("h", "out_h")],
        ..RULE
    },
    FilterRule {
        name: "rotate",
        params: &["angle", "out_w", "out_h", "fillcolor", "bilinear"],
        aliases: &[
            ("a", "angle"),
            ("ow", "out_w"),
            ("oh", "out_h"),
            ("c", "fillcolor"),
        ],
        ..RULE
    },
    FilterRule {
        name: "v360",
        params: &["input", "output", "interp", "w", "h"],
        ..RULE
    },
    FilterRule {
        name: "tile",
        params: &[
            "layout",
            "nb_frames",
            "margin",
            "padding",
            "color",
            "overlap",
            "init_padding",
        ],
        ..RULE
    },
    STACK,
    FilterRule {
        name: "vstack",
        ..STACK
    },
    FilterRule {
        name: "xstack",
        params: &["inputs", "layout", "grid", "shortest", "fill"],
        ..RULE
    },
    FilterRule {
        name: "hqx",
        params: &["n"],
        ..RULE
    },
    FilterRule {
        name: "xbr",
        params: &["n"],
        ..RULE
    },
    TRIM,
    FilterRule {
        name: "atrim",
        params: &[
            "start",
            "end",
            "start_pts",
            "end_pts",
            "duration",
            "start_sample",
            "end_sample",
        ],
        ..TRIM
    },
    FilterRule {
        name: "tmix",
        params: &["frames", "weights", "scale", "planes"],
        checks: &[("frames", Check::Count(MAX_LOOP_FRAMES))],
        ..RULE
    },
    FilterRule {
        name: "pad",
        params: &["width", "height", "x", "y", "color", "eval", "aspect"],
        aliases: &[("w", "width"), ("h", "height")],
        ..RULE
    },
    FilterRule {
        name: "fps",
        params: &["fps", "start_time", "round", "eof_action"],
        checks: &[("fps", Check::Rate)],
        ..RULE
    },
    FilterRule {
        name: "framerate",
        params: &["fps", "interp_start", "interp_end", "scene", "flags"],
        checks: &[("fps", Check::Rate)],
        ..RULE
    },
    FilterRule {
        name: "minterpolate",
        params: &[
            "fps",
            "mi_mode",
            "mc_mode",
            "me_mode",
            "me",
            "mb_size",
            "search_param",
        ],
        checks: &[("fps", Check::Rate)],
        ..RULE
    },
    FilterRule {
        name: "zoompan",
        params: &["zoom", "x", "y", "d", "s", "fps"],
        aliases: &[("z", "zoom")],
        checks: &[("s", Check::Size), ("fps", Check::Rate)],
        ..RULE
    },
    FilterRule {
        name: "showwaves",
        params: &["size", "mode", "n", "rate"],
        aliases: &[("s", "size"), ("r", "rate")],
        checks: &[("size", Check::Size), ("rate", Check::Rate)],
        ..RULE
    },
    FilterRule {
        name: "showwavespic",
        params: &["size"],
        aliases: &[("s", "size")],
        checks: &[("size", Check::Size)],
        ..RULE
    },
    FilterRule {
        name: "showspectrum",
        params: &["size"],
        aliases: &[("s", "size")],
        checks: &[("size", Check::Size), ("fps", Check::Rate)],
        ..RULE
    },
    FilterRule {
        name: "showspectrumpic",
        params: &["size"],
        aliases: &[("s", "size")],
        checks: &[("size", Check::Size)],
        ..RULE
    },
    LOOP,
    FilterRule {
        name: "aloop",
        checks: &[
            ("loop", Check::Repeat { forever: -1 }),
            ("size", Check::Count(MAX_LOOP_SAMPLES)),
        ],
        ..LOOP
    },
    FilterRule {
        name: "tpad",
        params: &[
            "start",
            "stop",
            "start_mode",
            "stop_mode",
            "start_duration",
            "stop_duration",
        ],
        checks: &[
            ("start", Check::Frames),
            ("stop", Check::Frames),
            ("start_duration", Check::Duration),
            ("stop_duration", Check::Duration),
        ],
        ..RULE
    },
    FilterRule {
        name: "apad",
        params: &[
            "packet_size",
            "pad_len",
            "whole_len",
            "pad_dur",
            "whole_dur",
        ],
        checks: &[
            ("pad_len", Check::Samples),
            ("whole_len", Check::Samples),
            ("pad_dur", Check::Duration),
            ("whole_dur", Check::Duration),
        ],
        endless: Endless::UnlessOneOf(&["pad_len", "whole_len", "pad_dur", "whole_dur"]),
        ..RULE
    },
    MOVIE,
    FilterRule {
        name: "amovie",
        ..MOVIE
    },
    SUBTITLES,
    FilterRule {
        name: "ass",
        params: &["filename", "original_size", "fontsdir", "alpha", "shaping"],
        aliases: &[("f", "filename")],
        ..SUBTITLES
    },
    FilterRule {
        name: "lut3d",
        params: &["file", "clut", "interp"],
        checks: &[("file", Check::InputFile)],
        ..RULE
    },
    FilterRule {
        name: "lut1d",
        params: &["file", "interp"],
        checks: &[("file", Check::InputFile)],
        ..RULE
    },
    FilterRule {
        name: "drawtext",
        params: &[
            "fontfile",
            "text",
            "textfile",
            "fontcolor",
            "fontcolor_expr",
            "boxcolor",
            "bordercolor",
            "shadowcolor",
            "box",
            "boxborderw",
            "line_spacing",
            "fontsize",
            "x",
            "y",
            "shadowx",
            "shadowy",
            "borderw",
            "tabsize",
            "basetime",
            "font",
            "expansion",
            "timecode",
            "tc24hmax",
            "timecode_rate",
            "reload",
            "alpha",
            "fix_bounds",
            "start_number",
            "text_source",
            "text_shaping",
            "ft_load_flags",
        ],
        aliases: &[("r", "timecode_rate"), ("rate", "timecode_rate")],
        checks: &[
            (
                "fontfile",
                Check::Refused("it reads a font file; name a font family with font= instead"),
            ),
            (
                "textfile",
                Check::Refused("it reads a file; put the text in text= instead"),
            ),
            ("reload", Check::Refused("it re-reads a text file")),
            ("text", Check::Text),
        ],
        ..RULE
    },
    FilterRule {
        name: "curves",
        params: &[
            "preset", "master", "red", "green", "blue", "all", "psfile", "plot",
        ],
        aliases: &[("m", "master"), ("r", "red"), ("g", "green"), ("b", "blue")],
        checks: &[
            ("psfile", Check::Refused("it reads a file")),
            ("plot", Check::Refused("it writes a file")),
        ],
        ..RULE
    },
    FilterRule {
        name: "selectivecolor",
        params: &[
            "correction_method",
            "reds",
            "yellows",
            "greens",
            "cyans",
            "blues",
            "magentas",
            "whites",
            "neutrals",
            "blacks",
            "psfile",
        ],
        checks: &[("psfile", Check::Refused("it reads a file"))],
        ..RULE
    },
    FilterRule {
        name: "deshake",
        params: &[
            "x",
            "y",
            "w",
            "h",
            "rx",
            "ry",
            "edge",
            "blocksize",
            "contrast",
            "search",
            "filename",
            "opencl",
        ],
        checks: &[("filename", Check::Refused("it writes a log file"))],
        ..RULE
    },
    FilterRule {
        name: "firequalizer",
        params: &[
            "gain",
            "gain_entry",
            "delay",
            "accuracy",
            "wfunc",
            "fixed",
            "multi",
            "zero_phase",
            "scale",
            "dumpfile",
        ],
        checks: &[("dumpfile", Check::Refused("it writes a file"))],
        ..RULE
    },
    FilterRule {
        name: "paletteuse",
        params: &[
            "dither",
            "bayer_scale",
            "diff_mode",
            "new",
            "alpha_threshold",
            "use_alpha",
            "debug_kdtree",
        ],
        checks: &[("debug_kdtree", Check::Refused("it writes a file"))],
        ..RULE
    },
    FilterRule {
        name: "psnr",
        params: &["stats_file"],
        aliases: &[("f", "stats_file")],
        checks: &[("stats_file", Check::Refused("it writes a file"))],
        ..RULE
    },
    FilterRule {
        name: "ssim",
        params: &["stats_file"],
        aliases: &[("f", "stats_file")],
        checks: &[("stats_file", Check::Refused("it writes a file"))],
        ..RULE
    },
    // Sources: endless unless given a duration.
    FilterRule {
        name: "color",
        params: &["color", "size", "rate", "duration", "sar"],
        aliases: &[
            ("c", "color"),
            ("s", "size"),
            ("r", "rate"),
            ("d", "duration"),
        ],
        ..source("color")
    },
    source("testsrc"),
    source("testsrc2"),
    source("smptebars"),
    source("smptehdbars"),
    source("rgbtestsrc"),
    source("yuvtestsrc"),
    source("pal75bars"),
    source("pal100bars"),
    source("nullsrc"),
    FilterRule {
        name: "anullsrc",
        params: &["channel_layout", "sample_rate", "nb_samples", "duration"],
        aliases: &[
            ("cl", "channel_layout"),
            ("r", "sample_rate"),
            ("n", "nb_samples"),
            ("d", "duration"),
        ],
        checks: &[("duration", Check::Duration)],
        endless: UNTIL_DURATION,
    },
    FilterRule {
        name: "sine",
        params: &[
            "frequency",
            "beep_factor",
            "sample_rate",
            "duration",
            "samples_per_frame",
        ],
        aliases: &[
            ("f", "frequency"),
            ("b", "beep_factor"),
            ("r", "sample_rate"),
            ("d", "duration"),
        ],
        checks: &[("duration", Check::Duration)],
        endless: UNTIL_DURATION,
    },
    FilterRule {
        name: "anoisesrc",
        params: &[
            "sample_rate",
            "amplitude",
            "duration",
            "color",
            "seed",
            "nb_samples",
        ],
        aliases: &[
            ("r", "sample_rate"),
            ("a", "amplitude"),
            ("d", "duration"),
            ("colour", "color"),
            ("c", "color"),
            ("s", "seed"),
            ("n", "nb_samples"),
        ],
        checks: &[("duration", Check::Duration)],
        endless: UNTIL_DURATION,
    },
    FilterRule {
        name: "aevalsrc",
        params: &[
            "exprs",
            "nb_samples",
            "sample_rate",
            "duration",
            "channel_layout",
        ],
        aliases: &[
            ("n", "nb_samples"),
            ("s", "sample_rate"),
            ("d", "duration"),
            ("c", "channel_layout"),
        ],
        checks: &[("duration", Check::Duration)],
        endless: UNTIL_DURATION,
    },
];

/// Filters allowed without option-specific checks (values are still checked for paths and
/// URLs): none of them reads or writes files, opens sockets or loads code.
#[rustfmt::skip]
pub const PLAIN_FILTERS: &[&str] = &[
    // Geometry and orientation.
    "cropdetect", "transpose", "hflip", "vflip", "setsar", "setdar",
    "fillborders", "lenscorrection", "perspective", "untile", "swaprect",
    // Formats, timing and stream plumbing.
    "format", "noformat", "setpts", "asetpts", "settb", "asettb", "select",
    "aselect", "thumbnail", "split", "asplit", "concat", "null", "anull", "copy", "acopy",
    "reverse", "areverse", "setfield", "setparams", "fifo", "afifo", "nullsink", "anullsink",
    "shuffleframes", "shuffleplanes", "streamselect", "astreamselect", "segment", "asegment",
    "mpdecimate", "decimate", "framestep", "random", "tblend", "interleave", "ainterleave",
    "idet", "showinfo", "ashowinfo",
    // Compositing.
    "overlay", "blend", "xfade", "alphamerge", "alphaextract",
    "premultiply", "unpremultiply", "maskedmerge", "mergeplanes", "extractplanes", "haldclut",
    "chromakey", "colorkey", "lumakey", "despill", "colorhold",
    // Colour and tone.
    "eq", "hue", "colorchannelmixer", "colorbalance", "colorlevels", "colorcontrast",
    "colorcorrect", "colorize", "colortemperature", "colorspace", "colormatrix", "negate", "lut",
    "lutrgb", "lutyuv", "lut2", "tlut2", "vibrance", "vignette", "exposure", "monochrome",
    "grayworld", "huesaturation", "pseudocolor", "tonemap", "palettegen", "elbg",
    // Sharpen, blur, denoise, deinterlace.
    "boxblur", "gblur", "avgblur", "smartblur", "dblur", "unsharp", "cas", "median", "hqdn3d",
    "nlmeans", "atadenoise", "bm3d", "removegrain", "deblock", "deband", "dctdnoiz", "fftdnoiz",
    "owdenoise", "vaguedenoiser", "yadif", "bwdif", "w3fdif", "kerndeint", "estdif",
    "separatefields", "weave", "doubleweave", "tinterlace", "interlace", "il", "fieldorder",
    "telecine", "detelecine", "pullup", "fieldmatch", "dejudder", "edgedetect", "sobel", "prewitt",
    "roberts", "kirsch", "scharr", "convolution", "geq", "noise", "pixelize", "delogo",
    "limiter", "fftfilt", "erosion", "dilation", "inflate", "deflate", "morpho", "lagfun",
    "amplify", "photosensitivity", "drawbox", "drawgrid", "fade", "histogram", "waveform",
    "vectorscope", "datascope", "oscilloscope", "pixscope", "ciescope", "blackdetect", "blackframe",
    "freezedetect", "freezeframes", "scdet", "signalstats", "entropy", "vif", "msad", "identity",
    // Audio.
    "volume", "loudnorm", "dynaudnorm", "speechnorm", "aresample", "atempo", "asetrate", "pan",
    "amix", "amerge", "join", "channelsplit", "channelmap", "highpass", "lowpass", "bandpass",
    "bandreject", "allpass", "equalizer", "anequalizer", "superequalizer", "bass", "treble",
    "lowshelf", "highshelf", "tiltshelf", "biquad", "acompressor", "alimiter", "agate", "compand",
    "mcompand", "sidechaincompress", "sidechaingate", "silenceremove", "silencedetect", "aformat",
    "adelay", "afade", "acrossfade", "aecho", "chorus", "flanger", "aphaser", "tremolo", "vibrato",
    "earwax", "extrastereo", "stereotools", "stereowiden", "crystalizer", "dcshift", "afftdn",
    "anlmdn", "adeclick", "adeclip", "deesser", "acrusher", "asubboost", "asetnsamples", "astats",
    "ebur128", "volumedetect", "aemphasis", "apulsator", "haas", "surround", "headphone",
    "crossfeed", "bs2b", "dialoguenhance", "virtualbass", "asoftclip", "apsyclip", "adynamicsmooth",
    "adynamicequalizer", "acontrast", "aderivative", "aintegral",
    // Audio visualisation.
    "showvolume", "showfreqs", "avectorscope", "ahistogram", "aphasemeter", "abitscope",
];

/// Filters refused with a specific reason; every other unlisted filter gets a generic one.
#[rustfmt::skip]
pub const REFUSED_FILTERS: &[(&str, &str)] = &[
    ("sendcmd", "it reads commands from a file"),
    ("asendcmd", "it reads commands from a file"),
    ("zmq", "it listens on a network socket"),
    ("azmq", "it listens on a network socket"),
    ("ladspa", "it loads code from a library"),
    ("lv2", "it loads code from a library"),
    ("frei0r", "it loads code from a library"),
    ("frei0r_src", "it loads code from a library"),
    ("ocr", "it reads model files from the host"),
    ("sr", "it reads model files from the host"),
    ("derain", "it reads model files from the host"),
    ("dnn_processing", "it reads model files from the host"),
    ("dnn_classify", "it reads model files from the host"),
    ("dnn_detect", "it reads model files from the host"),
    ("arnndn", "it reads model files from the host"),
    ("nnedi", "it reads a weights file from the host"),
    ("asr", "it reads model files from the host"),
    ("sofalizer", "it reads a SOFA file from the host"),
    ("vidstabdetect", "it writes a file"),
    ("vidstabtransform", "it reads a file"),
    ("signature", "it writes files"),
    ("vmafmotion", "it writes a file"),
    ("libvmaf", "it reads model files from the host"),
    ("cover_rect", "it reads an image file"),
    ("find_rect", "it reads an image file"),
    ("removelogo", "it reads an image file"),
    ("fieldhint", "it reads a hint file"),
    ("flite", "it reads a text file and voices from the host"),
    ("showcqt", "it reads font and image files"),
    ("cellauto", "it reads a pattern file"),
    ("life", "it reads a pattern file"),
    ("realtime", "it stalls processing on purpose"),
    ("arealtime", "it stalls processing on purpose"),
    ("program_opencl", "it loads an OpenCL program"),
    ("openclsrc", "it loads an OpenCL program"),
    ("libplacebo", "it needs host GPU devices and can load shader files"),
    ("hwupload", "it needs host GPU devices"),
    ("hwdownload", "it needs host GPU devices"),
    ("hwmap", "it needs host GPU devices"),
    ("afir", "it is not supported"),
    ("buffer", "it is internal to ffmpeg"),
    ("abuffer", "it is internal to ffmpeg"),
    ("buffersink", "it is internal to ffmpeg"),
    ("abuffersink", "it is internal to ffmpeg"),
    ("sws_flags", "give scaling flags with scale's flags= option instead"),
];

/// Protocol prefixes: a filter value starting with one of these followed by `:` names a URL.
#[rustfmt::skip]
pub const PROTOCOLS: &[&str] = &[
    "file", "http", "https", "ftp", "tcp", "udp", "tls", "rtmp", "rtmps", "rtmpt", "rtmpe",
    "rtmpte", "rtsp", "rtp", "srtp", "srt", "sctp", "unix", "pipe", "fd", "data", "subfile",
    "concat", "concatf", "crypto", "cache", "async", "gopher", "gophers", "hls", "icecast", "mmsh",
    "mmst", "sftp", "smb", "ipfs", "ipns", "bluray", "md5", "prompeg", "tee", "zmq", "librist",
    "libssh", "libsmbclient", "httpproxy", "dtls",
];
