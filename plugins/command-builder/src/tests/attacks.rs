//! One row per attack class (the "Always refused" list of the README beside this crate): the task a
//! tenant sends, and a part of the refusal they must get.

use super::*;
use crate::Task;
use crate::config::Config;

/// A task with one input (`in.mp4`) carrying `options`, and one plain output.
fn in_opts(options: &[&str]) -> Task {
    task(
        vec![input("in.mp4", options)],
        vec![output("out.mp4", &[], &[])],
        None,
    )
}

/// A task with one input and one output (`out.mp4`) carrying `options`.
fn out_opts(options: &[&str]) -> Task {
    task(
        vec![input("in.mp4", &[])],
        vec![output("out.mp4", options, &[])],
        None,
    )
}

fn out_named(file: &str, options: &[&str]) -> Task {
    task(
        vec![input("in.mp4", &[])],
        vec![output(file, options, &[])],
        None,
    )
}

/// A task whose filter_complex is `graph`, with inputs `in.mp4` and `logo.png`.
fn graph(graph: &str) -> Task {
    task(
        vec![input("in.mp4", &[]), input("logo.png", &[])],
        vec![output("out.mp4", &["-t", "5"], &[])],
        Some(graph),
    )
}

fn rows() -> Vec<(&'static str, Task, &'static str)> {
    vec![
        // Read local files into the output.
        (
            "tty demuxer",
            in_opts(&["-f", "tty"]),
            "Input format 'tty' is not allowed: it renders the file's bytes as text",
        ),
        (
            "bin demuxer",
            in_opts(&["-f", "bin"]),
            "Input format 'bin' is not allowed",
        ),
        (
            "extra -i in options",
            in_opts(&["-i", "/etc/passwd"]),
            "Option '-i' is not allowed: inputs are given as the task's inputs",
        ),
        (
            "-i in output options",
            out_opts(&["-i", "/etc/passwd"]),
            "Option '-i' is not allowed",
        ),
        (
            "movie on a path",
            graph("movie=/etc/passwd:f=tty[m];[0:v][m]overlay"),
            "Filter 'movie' option 'filename' is not allowed: it must be @{name}",
        ),
        (
            "movie of own input as tty",
            graph("movie=@{logo.png}:f=tty[m];[0:v][m]overlay"),
            "Filter 'movie' option 'format_name' value 'tty' is not allowed",
        ),
        (
            "drawtext textfile",
            graph("[0:v]drawtext=textfile=/etc/passwd"),
            "Filter 'drawtext' option 'textfile' is not allowed: it reads a file",
        ),
        (
            "drawtext positional fontfile",
            graph("[0:v]drawtext=/etc/passwd"),
            "option 'fontfile' is not allowed",
        ),
        (
            "drawtext textfile in -vf",
            out_opts(&["-vf", "drawtext=textfile=/etc/passwd"]),
            "option 'textfile' is not allowed",
        ),
        (
            "subtitles on a path",
            out_opts(&["-vf", "subtitles=/etc/passwd"]),
            "Filter 'subtitles' option 'filename' is not allowed",
        ),
        (
            "ass on a path",
            out_opts(&["-vf", "ass=filename=/etc/passwd"]),
            "Filter 'ass' option 'filename' is not allowed",
        ),
        (
            "lut3d on a path",
            out_opts(&["-vf", "lut3d=/etc/passwd"]),
            "Filter 'lut3d' option 'file' is not allowed",
        ),
        (
            "unknown placeholder",
            graph("movie=@{secret.mp4}[m];[0:v][m]overlay"),
            "@{secret.mp4} does not name an input of this task",
        ),
        // Switch off ffmpeg's own guards.
        (
            "allowed_extensions",
            in_opts(&["-allowed_extensions", "ALL"]),
            "Option '-allowed_extensions' is not allowed: it switches off the HLS demuxer's file extension check",
        ),
        (
            "allowed_segment_extensions",
            in_opts(&["-allowed_segment_extensions", "ALL"]),
            "Option '-allowed_segment_extensions' is not allowed",
        ),
        (
            "concat safe 0",
            in_opts(&["-f", "concat", "-safe", "0"]),
            "Input format 'concat' is not allowed: it reads the files named in the list",
        ),
        (
            "safe alone",
            in_opts(&["-safe", "0"]),
            "Option '-safe' is not allowed: it switches off the concat demuxer's path check",
        ),
        (
            "hls demuxer",
            in_opts(&["-f", "hls"]),
            "Input format 'hls' is not allowed: it follows the playlist's references",
        ),
        (
            "dash demuxer",
            in_opts(&["-f", "dash"]),
            "Input format 'dash' is not allowed",
        ),
        (
            "protocol_whitelist",
            in_opts(&["-protocol_whitelist", "file,http,tcp"]),
            "the host controls which protocols",
        ),
        (
            "lavfi input",
            in_opts(&["-f", "lavfi"]),
            "use a source filter",
        ),
        (
            "glob pattern",
            in_opts(&["-f", "image2", "-pattern_type", "glob"]),
            "glob patterns match files by wildcard",
        ),
        // Reach the network from a filter.
        (
            "movie over http",
            graph("movie=http\\\\://169.254.169.254/latest[m];[0:v][m]overlay"),
            "Filter 'movie' option 'filename' is not allowed",
        ),
        (
            "amovie over tcp",
            graph("amovie=filename='tcp\\://10.0.0.1\\:80'[a]"),
            "Filter 'amovie' option 'filename' is not allowed",
        ),
        (
            "url in a plain filter",
            graph("[0:v]format=pix_fmts='http\\://x'"),
            "looks like a file path or URL",
        ),
        // Load code or open sockets.
        (
            "ladspa",
            out_opts(&["-af", "ladspa=file=/tmp/evil.so"]),
            "Filter 'ladspa' is not allowed: it loads code from a library",
        ),
        (
            "lv2",
            out_opts(&["-af", "lv2=p=x"]),
            "Filter 'lv2' is not allowed: it loads code",
        ),
        (
            "frei0r",
            out_opts(&["-vf", "frei0r=filter_name=x"]),
            "Filter 'frei0r' is not allowed: it loads code",
        ),
        (
            "zmq",
            out_opts(&["-vf", "zmq"]),
            "Filter 'zmq' is not allowed: it listens on a network socket",
        ),
        (
            "azmq",
            out_opts(&["-af", "azmq=b=tcp\\\\://0.0.0.0\\\\:5555"]),
            "Filter 'azmq' is not allowed",
        ),
        (
            "sendcmd",
            out_opts(&["-vf", "sendcmd=f=/etc/passwd,hflip"]),
            "Filter 'sendcmd' is not allowed: it reads commands from a file",
        ),
        (
            "unknown filter",
            out_opts(&["-vf", "nosuchfilter"]),
            "Filter 'nosuchfilter' is not allowed: it is not among the supported filters",
        ),
        // Read option values from files.
        (
            "filter_script",
            out_opts(&["-filter_script:v", "/etc/hostname"]),
            "Option '-filter_script:v' is not allowed: it reads the filter graph from a file",
        ),
        (
            "filter_complex_script",
            out_opts(&["-filter_complex_script", "/etc/hostname"]),
            "Option '-filter_complex_script' is not allowed",
        ),
        (
            "ffmpeg 7 -/opt",
            out_opts(&["-/vf", "/etc/passwd"]),
            "Option '-/vf' is not allowed: the '-/' prefix makes ffmpeg read the option's value from a file",
        ),
        (
            "-/ on input",
            in_opts(&["-/filter_complex", "/etc/passwd"]),
            "the '-/' prefix",
        ),
        (
            "ffmpeg 7 /opt in a filter",
            out_opts(&["-vf", "drawtext=/text=/etc/passwd"]),
            "Filter 'drawtext' has an invalid option name '/text'",
        ),
        (
            "fpre",
            out_opts(&["-fpre", "/etc/passwd"]),
            "Option '-fpre' is not allowed: it reads a preset file",
        ),
        (
            "vpre",
            out_opts(&["-vpre", "x"]),
            "Option '-vpre' is not allowed",
        ),
        // Write outside the job.
        (
            "dump_attachment",
            in_opts(&["-dump_attachment:t", ""]),
            "Option '-dump_attachment:t' is not allowed: it writes files named by the input",
        ),
        (
            "attach",
            out_opts(&["-attach", "/etc/passwd"]),
            "Option '-attach' is not allowed",
        ),
        (
            "passlogfile",
            out_opts(&["-passlogfile", "/tmp/x"]),
            "Option '-passlogfile' is not allowed",
        ),
        (
            "pass",
            out_opts(&["-pass", "1"]),
            "Option '-pass' is not allowed: two-pass encoding writes log files",
        ),
        (
            "vstats_file",
            out_opts(&["-vstats_file", "/tmp/x"]),
            "Option '-vstats_file' is not allowed",
        ),
        (
            "report",
            out_opts(&["-report"]),
            "Option '-report' is not allowed: it writes a log file",
        ),
        (
            "sdp_file",
            out_opts(&["-sdp_file", "/tmp/x"]),
            "Option '-sdp_file' is not allowed",
        ),
        (
            "progress",
            out_opts(&["-progress", "/tmp/x"]),
            "Option '-progress' is not allowed",
        ),
        (
            "stats_enc_pre",
            out_opts(&["-stats_enc_pre", "/tmp/x"]),
            "Option '-stats_enc_pre' is not allowed",
        ),
        (
            "stray positional",
            out_opts(&["-c:v", "libx264", "/tmp/evil.mp4"]),
            "Unexpected '/tmp/evil.mp4' in output 1 options",
        ),
        (
            "stray positional on input",
            in_opts(&["extra.mp4"]),
            "Unexpected 'extra.mp4' in input 1 options",
        ),
        ("bare dash", out_opts(&["-"]), "Unexpected '-'"),
        (
            "injection in one token",
            out_opts(&["-vf scale=2:2 -i /etc/passwd"]),
            "is not allowed: it is not among the supported options",
        ),
        (
            "tee muxer",
            out_opts(&["-f", "tee"]),
            "Output format 'tee' is not allowed: it writes to several destinations",
        ),
        (
            "fifo muxer",
            out_opts(&["-f", "fifo"]),
            "Output format 'fifo' is not allowed",
        ),
        (
            "rtp muxer",
            out_opts(&["-f", "rtp"]),
            "Output format 'rtp' is not allowed: it sends to the network",
        ),
        (
            "sdl muxer",
            out_opts(&["-f", "sdl"]),
            "Output format 'sdl' is not allowed: it writes to a host device",
        ),
        (
            "ametadata writing a file",
            out_opts(&["-af", "ametadata=mode=print:file=/etc/cron.d/x"]),
            "it writes a file; printed metadata goes to the log",
        ),
        (
            "dash segment names",
            out_named("out.mpd", &["-init_seg_name", "../x.m4s"]),
            "DASH segment names are the muxer's own",
        ),
        ("unknown extension", out_named("out.xyz", &[]), "add -f"),
        (
            "segment list outside",
            out_named(
                "seg_%03d.ts",
                &["-f", "segment", "-segment_list", "/tmp/list.m3u8"],
            ),
            "Value '/tmp/list.m3u8' of option '-segment_list' is not allowed",
        ),
        (
            "hls segments outside",
            out_named("p.m3u8", &["-hls_segment_filename", "/tmp/seg%d.ts"]),
            "Value '/tmp/seg%d.ts' of option '-hls_segment_filename' is not allowed",
        ),
        (
            "hls segments climbing",
            out_named("p.m3u8", &["-hls_segment_filename", "../seg%d.ts"]),
            "of option '-hls_segment_filename' is not allowed",
        ),
        (
            "hls key file",
            out_named("p.m3u8", &["-hls_key_info_file", "/etc/passwd"]),
            "Option '-hls_key_info_file' is not allowed: it reads a key file",
        ),
        (
            "hls option on mp4",
            out_opts(&["-hls_time", "2"]),
            "only applies to hls output",
        ),
        (
            "strftime names",
            out_named("p.m3u8", &["-strftime", "1"]),
            "Option '-strftime' is not allowed",
        ),
        (
            "output path",
            out_named("/tmp/x.mp4", &[]),
            "Output file name '/tmp/x.mp4' is not allowed",
        ),
        (
            "output climbing",
            out_named("../x.mp4", &[]),
            "Output file name '../x.mp4' is not allowed",
        ),
        (
            "output looks like an option",
            out_named("-y.mp4", &[]),
            "must not start with '-'",
        ),
        (
            "output with control char",
            out_named("a\u{7}.mp4", &[]),
            "control",
        ),
        (
            "output with bad pattern",
            out_named("%s.png", &[]),
            "numbering pattern",
        ),
        (
            "output name too long",
            out_named(&format!("{}.mp4", "a".repeat(300)), &[]),
            "longer than 255 bytes",
        ),
        (
            "x264 stats file",
            out_opts(&["-x264-params", "pass=1:stats=/tmp/x.log"]),
            "reads or writes files",
        ),
        (
            "x265 csv",
            out_opts(&["-x265-params", "csv=/tmp/x.csv"]),
            "reads or writes files",
        ),
        (
            "curves psfile",
            out_opts(&["-vf", "curves=psfile=/etc/passwd"]),
            "it reads a file",
        ),
        (
            "paletteuse debug file",
            graph("[0:v]split[a][b];[a]palettegen[p];[b][p]paletteuse=debug_kdtree=/tmp/k.dot"),
            "it writes a file",
        ),
        (
            "psnr stats file",
            graph("[0:v][1:v]psnr=stats_file=/tmp/x"),
            "Filter 'psnr' option 'stats_file' is not allowed",
        ),
        (
            "metadata filter file",
            out_opts(&["-vf", "metadata=mode=print:file=/tmp/x"]),
            "Filter 'metadata' option 'file' is not allowed",
        ),
        // Exhaust the machine.
        (
            "stream_loop forever, unbounded output",
            in_opts(&["-stream_loop", "-1"]),
            "Input 1 loops forever (-stream_loop -1): add -t to the input, or bound every output",
        ),
        (
            "stream_loop forever, one output unbounded",
            task(
                vec![input("in.mp4", &["-stream_loop", "-1"])],
                vec![
                    output("a.mp4", &["-t", "5"], &[]),
                    output("b.mp4", &[], &[]),
                ],
                None,
            ),
            "Input 1 loops forever (-stream_loop -1)",
        ),
        (
            "stream_loop forever, -shortest but every input endless",
            task(
                vec![
                    input("in.mp4", &["-stream_loop", "-1"]),
                    input("song.mp3", &["-stream_loop", "-1"]),
                ],
                vec![output("out.mp4", &["-shortest"], &["0:v", "1:a"])],
                None,
            ),
            "Input 1 loops forever (-stream_loop -1)",
        ),
        (
            "image loop and stream loop under -shortest",
            task(
                vec![
                    input("img.png", &["-loop", "1"]),
                    input("song.mp3", &["-stream_loop", "-1"]),
                ],
                vec![output("out.mp4", &["-shortest"], &["0:v", "1:a"])],
                None,
            ),
            "Input 1 loops its image forever (-loop 1)",
        ),
        (
            "stream_loop below -1",
            in_opts(&["-stream_loop", "-2"]),
            "expected a repeat count from 0 to 100, or -1 (forever, with bounded outputs)",
        ),
        (
            "stream_loop huge",
            in_opts(&["-stream_loop", "1000000"]),
            "from 0 to 100",
        ),
        (
            "endless source",
            graph("color=c=red:s=320x240[c];[0:v][c]overlay"),
            "",
        ),
        (
            "endless source, unbounded output",
            task(
                vec![input("in.mp4", &[])],
                vec![output("out.mp4", &[], &["[v]"])],
                Some("color=c=red:s=320x240[v]"),
            ),
            "Filter 'color' generates media forever",
        ),
        (
            "source too long",
            graph("color=c=red:d=100000[c]"),
            "the limit is 3600 seconds",
        ),
        (
            "loop forever",
            out_opts(&["-vf", "loop=-1:1:0"]),
            "Filter 'loop' generates media forever: give it a repeat count up to 100, or bound every output",
        ),
        (
            "aloop forever",
            out_opts(&["-af", "aloop=loop=-1:size=48000"]),
            "Filter 'aloop' generates media forever",
        ),
        (
            "loop buffer",
            out_opts(&["-vf", "loop=loop=2:size=30000"]),
            "Filter 'loop' option 'size' value '30000' is not allowed: expected a whole number from 0 to 300",
        ),
        (
            "loop forever in a graph, unbounded output",
            task(
                vec![input("in.mp4", &[])],
                vec![output("out.mp4", &[], &["[v]"])],
                Some("[0:v]loop=loop=-1:size=10[v]"),
            ),
            "Filter 'loop' generates media forever",
        ),
        (
            "loop buffer above 300 frames",
            out_opts(&["-vf", "loop=loop=2:size=301", "-t", "5"]),
            "expected a whole number from 0 to 300",
        ),
        (
            "tmix over many frames",
            out_opts(&["-vf", "tmix=frames=1000"]),
            "Filter 'tmix' option 'frames' value '1000' is not allowed: expected a whole number from 0 to 300",
        ),
        (
            "tpad stop duration beyond the limit",
            out_opts(&["-vf", "tpad=stop_duration=99999"]),
            "Filter 'tpad' option 'stop_duration' value '99999' is not allowed: the limit is 3600 seconds",
        ),
        (
            "tpad stop frames beyond the limit",
            out_opts(&["-vf", "tpad=stop=1000000"]),
            "expected a frame count from 0 to 216000",
        ),
        (
            "reverse of a whole input",
            out_opts(&["-vf", "reverse"]),
            "Filter 'reverse' keeps its whole input in memory: put trim/atrim with end= or duration= before it, or add -t to every input",
        ),
        (
            "areverse of a whole input",
            out_opts(&["-af", "areverse"]),
            "Filter 'areverse' keeps its whole input in memory",
        ),
        (
            "reverse after a trim without an end",
            out_opts(&["-vf", "trim=start=5,reverse"]),
            "or add -t to every input",
        ),
        (
            "reverse of a labelled input without -t",
            graph("[0:v]reverse[r]"),
            "Filter 'reverse' keeps its whole input in memory: put trim/atrim with end= or duration= before it, or add -t to input 1",
        ),
        (
            "reverse beside a trimmed branch",
            graph("[0:v]split[a][b];[a]trim=end=5[t];[b]reverse[r];[t][r]overlay[v]"),
            "add -t to input 1",
        ),
        (
            "areverse of an endless source",
            graph("sine=f=440[s];[s]areverse[a]"),
            "Filter 'areverse' keeps its whole input in memory, and 'sine' before it never ends",
        ),
        (
            "reverse of a movie",
            graph("movie=@{in.mp4}[m];[m]reverse[r]"),
            "'movie' before it reads a whole file",
        ),
        (
            "tpad forever",
            out_opts(&["-vf", "tpad=stop=-1"]),
            "-1 means forever",
        ),
        (
            "apad forever",
            out_opts(&["-af", "apad"]),
            "Filter 'apad' generates media forever",
        ),
        (
            "image loop forever",
            task(
                vec![input("img.png", &["-loop", "1"])],
                vec![output("out.mp4", &[], &[])],
                None,
            ),
            "Input 1 loops its image forever",
        ),
        (
            "huge scale",
            out_opts(&["-vf", "scale=100000:100000"]),
            "it gives 100000 pixels; the limit is 8192",
        ),
        (
            "scale by expression",
            out_opts(&["-vf", "scale=iw*100:ih*100"]),
            "it gives 819200 pixels for an input of up to 8192x8192; the limit is 8192",
        ),
        (
            "huge pad",
            out_opts(&["-vf", "pad=20000:20000"]),
            "the limit is 8192",
        ),
        // Frame sizes beyond max_dimension, whatever the filter (inputs of unknown size are
        // judged as 8192x8192, or half that when stacked).
        (
            "zscale width",
            out_opts(&["-vf", "zscale=w=9000:h=720"]),
            "Filter 'zscale' option 'w' value '9000' is not allowed: it gives 9000 pixels; the limit is 8192",
        ),
        (
            "v360 width",
            out_opts(&["-vf", "v360=e:c3x2:w=9000:h=100"]),
            "Filter 'v360' option 'w' value '9000' is not allowed",
        ),
        (
            "rotate output width",
            out_opts(&["-vf", "rotate=PI/6:ow=9000"]),
            "Filter 'rotate' option 'out_w' value '9000' is not allowed",
        ),
        (
            "rotate to the diagonal of a large input",
            out_opts(&["-vf", "rotate=a=t:ow=rotw(a):oh=roth(a)"]),
            "it gives 11585 pixels for an input of up to 8192x8192",
        ),
        (
            "tile of a large input",
            out_opts(&["-vf", "tile=3x1"]),
            "Filter 'tile' is not allowed here: it makes 24576x8192 frames for an input of up to 8192x8192; the limit is 8192 pixels per side",
        ),
        (
            "tile's default 6x5 layout",
            out_opts(&["-vf", "tile"]),
            "it makes 49152x40960 frames",
        ),
        (
            "tile after a scale still too wide",
            out_opts(&["-vf", "scale=4000:-1,tile=3x1"]),
            "it makes 12000x4000 frames for its 4000x4000 input",
        ),
        (
            "hstack of three large inputs",
            graph("[0:v][1:v][0:v]hstack=inputs=3[v]"),
            "Filter 'hstack' is not allowed here: it makes 12288x4096 frames",
        ),
        (
            "vstack of three large inputs",
            graph("[0:v][1:v][0:v]vstack=3[v]"),
            "Filter 'vstack' is not allowed here: it makes 4096x12288 frames",
        ),
        (
            "xstack grid of three",
            graph("[0:v][1:v][0:v]xstack=inputs=3:grid=3x1[v]"),
            "Filter 'xstack' is not allowed here: it makes 12288x4096 frames",
        ),
        (
            "xstack layout placed far away",
            graph("[0:v][1:v]xstack=layout=0_0|8000_0[v]"),
            "it makes 12096x4096 frames",
        ),
        (
            "xstack layout that cannot be read",
            graph("[0:v][1:v]xstack=layout=a_b|c_d[v]"),
            "option 'layout' value 'a_b|c_d' is not allowed: expected positions",
        ),
        (
            "scale by a multiple of the input",
            out_opts(&["-vf", "scale=iw*3:-1"]),
            "Filter 'scale' option 'w' value 'iw*3' is not allowed: it gives 24576 pixels for an input of up to 8192x8192",
        ),
        (
            "scale up a known size too far",
            out_opts(&["-vf", "scale=4000:-1,scale=iw*3:-1"]),
            "it gives 12000 pixels for its 4000x4000 input",
        ),
        (
            "scale size option",
            out_opts(&["-vf", "scale=s=99999x99999"]),
            "size '99999x99999' is not allowed",
        ),
        (
            "pad beyond a large input",
            out_opts(&["-vf", "pad=iw+20:ih+20"]),
            "it gives 8212 pixels for an input of up to 8192x8192",
        ),
        (
            "hqx of a large input",
            out_opts(&["-vf", "hqx=n=4"]),
            "Filter 'hqx' is not allowed here: it makes 32768x32768 frames",
        ),
        (
            "weave doubles a large input's height",
            out_opts(&["-vf", "weave"]),
            "Filter 'weave' is not allowed here: it makes 8192x16384 frames",
        ),
        (
            "huge frame size",
            out_opts(&["-s", "100000x100000"]),
            "larger than the limit of 8192",
        ),
        (
            "huge source size",
            graph("color=s=65536x65536:d=1[c]"),
            "larger than the limit of 8192",
        ),
        (
            "absurd frame rate",
            out_opts(&["-r", "1000000"]),
            "frame rates above 1000",
        ),
        (
            "absurd fps filter",
            out_opts(&["-vf", "fps=1000000"]),
            "frame rates above 1000",
        ),
        (
            "thread bomb",
            out_opts(&["-threads", "100000"]),
            "from 0 to 16",
        ),
        (
            "huge graph",
            out_opts(&["-vf", &"null,".repeat(20_000)]),
            "longer than",
        ),
        (
            "too many filters",
            out_opts(&["-vf", &vec!["null"; 600].join(",")]),
            "more than 512 filters",
        ),
        // Trap the WebAssembly plugin (a trap answers 500; a refusal 400).
        (
            "unary minus chain",
            out_opts(&["-vf", &format!("scale=w={}1", "-".repeat(7000))]),
            "expression nested too deeply",
        ),
        (
            "unary plus-minus chain",
            out_opts(&["-vf", &format!("pad=w={}1", "+-".repeat(3000))]),
            "expression nested too deeply",
        ),
        (
            "power chain",
            out_opts(&["-vf", &format!("scale=w=1{}", "^1".repeat(4000))]),
            "expression nested too deeply",
        ),
        // Maps.
        (
            "map missing input",
            task(
                vec![input("in.mp4", &[])],
                vec![output("out.mp4", &[], &["3:v"])],
                None,
            ),
            "Map '3:v' is not allowed: input 3 does not exist",
        ),
        (
            "map bad syntax",
            task(
                vec![input("in.mp4", &[])],
                vec![output("out.mp4", &[], &["0:v -i /etc/passwd"])],
                None,
            ),
            "Map '0:v -i /etc/passwd' is not allowed",
        ),
        (
            "map unknown label",
            task(
                vec![input("in.mp4", &[])],
                vec![output("out.mp4", &[], &["[nope]"])],
                None,
            ),
            "Map '[nope]' (output 1) does not name an output label",
        ),
        (
            "300 maps of one stream",
            task(
                vec![input("in.mp4", &[])],
                vec![output("out.mkv", &[], &vec!["0:v"; 300])],
                None,
            ),
            "Too many option tokens: options and maps make 600",
        ),
        (
            "120,000 maps",
            task(
                vec![input("in.mp4", &[])],
                vec![output("out.mkv", &[], &vec!["0:v"; 120_000])],
                None,
            ),
            "the limit is 512 (output 1)",
        ),
        (
            "maps beyond the stream cap",
            task(
                vec![input("in.mp4", &[])],
                vec![output("out.mkv", &[], &vec!["0:v"; 33])],
                None,
            ),
            "Too many maps: output 1 maps 33 streams; the limit is 32 per output",
        ),
        (
            "-map options and maps together beyond the cap",
            task(
                vec![input("in.mp4", &[])],
                vec![output(
                    "out.mkv",
                    &["-map", "0:a", "-map", "0:a"],
                    &vec!["0:v"; 31],
                )],
                None,
            ),
            "maps 33 streams",
        ),
        (
            "graph reads a missing input",
            graph("[7:v]hflip[v]"),
            "Filter graph input '[7:v]' names neither an input stream",
        ),
        // Unknown options are refused, not ignored.
        (
            "unknown option",
            out_opts(&["-frobnicate", "1"]),
            "Option '-frobnicate' is not allowed: it is not among the supported options",
        ),
        (
            "ignore_unknown",
            out_opts(&["-ignore_unknown"]),
            "Option '-ignore_unknown' is not allowed",
        ),
        (
            "hwaccel",
            in_opts(&["-hwaccel", "vaapi"]),
            "Option '-hwaccel' is not allowed: it opens host devices",
        ),
    ]
}

#[test]
fn every_attack_is_refused() {
    let mut failures = Vec::new();
    for (name, task, want) in rows() {
        match build(&task) {
            Ok(cmd) if want.is_empty() => {
                // A bounded output makes an endless source acceptable; keep the row as a
                // reminder that this is deliberate.
                assert!(cmd.outputs[0].args.contains(&"-t".to_string()), "{name}");
            }
            Ok(cmd) => failures.push(format!("{name}: allowed: {:?}", argv(&cmd))),
            Err(r) if !r.message.contains(want) => {
                failures.push(format!("{name}: wrong message: {}", r.message))
            }
            Err(_) => {}
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn refusals_name_their_subject_and_leak_no_host_paths() {
    for (name, task, _) in rows() {
        if let Err(r) = build(&task) {
            assert!(
                r.subject.as_deref().is_some_and(|s| !s.is_empty()),
                "{name}: no subject"
            );
            assert!(
                !r.message.contains("/job/"),
                "{name}: message leaks a staged path: {}",
                r.message
            );
        }
    }
}

#[test]
fn config_cannot_reopen_file_options() {
    for option in [
        "-filter_script",
        "-dump_attachment",
        "-i",
        "-safe",
        "-stats_mux_pre",
    ] {
        let json = format!(r#"{{"extra_allowed_options":["{option}"]}}"#);
        assert!(Config::from_json(&json).is_err(), "{option}");
    }
}

#[test]
fn config_denials_apply() {
    let config = Config::from_json(
        r#"{"denied_options":["-threads"],"denied_filters":["drawtext"],"max_dimension":1920}"#,
    )
    .unwrap();
    let cases = [
        (
            out_opts(&["-threads", "2"]),
            "Option '-threads' is not allowed",
        ),
        (
            out_opts(&["-vf", "drawtext=text=hi"]),
            "the operator has disabled it",
        ),
        (out_opts(&["-vf", "scale=3840:-2"]), "the limit is 1920"),
    ];
    for (task, want) in cases {
        let err = build_with(&task, &config).unwrap_err();
        assert!(err.message.contains(want), "{}", err.message);
    }
}
