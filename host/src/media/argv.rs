//! The host's own check of what a command-builder plugin returned (a plugin is replaceable, so
//! it is not trusted), and the assembly of the final argv. Inputs must be the staged paths,
//! outputs must lie directly in the job's output folder, and no option may name a path outside
//! the job, a protocol, or a parent directory. The sandbox is the wall; this is the fence.

use std::path::Path;

use crate::plugins::types::{BuiltCommand, BuiltProbe, StagedInput};

/// Protocols ffmpeg knows; none may appear in an option value (`file:/etc/passwd`, `tcp:...`).
const PROTOCOLS: &[&str] = &[
    "async",
    "bluray",
    "cache",
    "concat",
    "concatf",
    "crypto",
    "data",
    "fd",
    "ffrtmpcrypt",
    "ffrtmphttp",
    "file",
    "ftp",
    "gopher",
    "gophers",
    "hls",
    "http",
    "httpproxy",
    "https",
    "icecast",
    "ipfs",
    "ipns",
    "md5",
    "mmsh",
    "mmst",
    "pipe",
    "prompeg",
    "rtmp",
    "rtmpe",
    "rtmps",
    "rtmpt",
    "rtmpte",
    "rtmpts",
    "rtp",
    "rtsp",
    "sctp",
    "sftp",
    "smb",
    "srt",
    "srtp",
    "subfile",
    "tcp",
    "tee",
    "tls",
    "udp",
    "udplite",
    "unix",
    "zmq",
    "librtmp",
    "libsmbclient",
    "libssh",
    "dvd",
    "cdio",
];

/// Characters after which a `/` starts a path rather than a division (`iw/2`, `1/2`).
const PATH_LEADERS: &[char] = &['=', ':', ',', ';', '\'', '"', '[', ']', '(', ' ', '\\', '|'];

#[derive(Debug, PartialEq, Eq)]
pub struct Refused(pub String);

/// Host flags that always lead: no stdin, no banner, errors only on stderr, progress on stdout.
const LEAD: &[&str] = &[
    "-nostdin",
    "-hide_banner",
    "-nostats",
    "-loglevel",
    "error",
    "-progress",
    "pipe:1",
    "-n",
];

/// The argv (without the program) of a checked ffmpeg command.
pub fn ffmpeg_argv(
    cmd: &BuiltCommand,
    staged: &[StagedInput],
    job_dir: &Path,
    out_dir: &Path,
) -> Result<Vec<String>, Refused> {
    let job = job_dir
        .to_str()
        .ok_or_else(|| Refused("job path is not UTF-8".into()))?;
    let out = out_dir
        .to_str()
        .ok_or_else(|| Refused("output path is not UTF-8".into()))?;
    let mut argv: Vec<String> = LEAD.iter().map(|s| s.to_string()).collect();
    check_tokens(&cmd.global_args, job)?;
    argv.extend(cmd.global_args.iter().cloned());
    if cmd.inputs.is_empty() || cmd.outputs.is_empty() {
        return Err(Refused("the command has no input or no output".into()));
    }
    for input in &cmd.inputs {
        check_tokens(&input.args, job)?;
        if !staged.iter().any(|s| s.path == input.path) {
            return Err(Refused(format!(
                "input '{}' is not one of the staged inputs",
                input.path
            )));
        }
        let concat = input
            .args
            .windows(2)
            .any(|w| w[0] == "-f" && w[1] == "concat")
            || input.args.iter().any(|a| a == "-safe");
        let list = Path::new(&input.path)
            .extension()
            .is_some_and(|e| e == super::scratch::CONCAT_LIST_EXT);
        if concat && !list {
            return Err(Refused(format!(
                "input '{}' is read with the concat demuxer but is not a concat list the host checked",
                input.path
            )));
        }
        argv.extend(input.args.iter().cloned());
        // Last before -i, so a tenant's own whitelist cannot widen it.
        argv.extend([
            "-protocol_whitelist".into(),
            "file".into(),
            "-i".into(),
            input.path.clone(),
        ]);
    }
    for output in &cmd.outputs {
        check_tokens(&output.args, job)?;
        let name = output
            .path
            .strip_prefix(out)
            .and_then(|rest| rest.strip_prefix('/'))
            .ok_or_else(|| {
                Refused(format!(
                    "output '{}' is outside the output folder",
                    output.path
                ))
            })?;
        if !crate::names::valid_file_name(name) || name.starts_with('-') {
            return Err(Refused(format!("output name '{name}' is not allowed")));
        }
        argv.extend(output.args.iter().cloned());
        argv.push(output.path.clone());
    }
    Ok(argv)
}

/// The argv of a checked ffprobe command: the plugin's options, JSON output, the input.
pub fn ffprobe_argv(cmd: &BuiltProbe, input: &str, job_dir: &Path) -> Result<Vec<String>, Refused> {
    let job = job_dir
        .to_str()
        .ok_or_else(|| Refused("job path is not UTF-8".into()))?;
    check_tokens(&cmd.args, job)?;
    let mut argv: Vec<String> = ["-hide_banner", "-v", "error", "-of", "json"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    argv.extend(cmd.args.iter().cloned());
    argv.extend([
        "-protocol_whitelist".into(),
        "file".into(),
        "-i".into(),
        input.to_string(),
    ]);
    Ok(argv)
}

fn check_tokens(tokens: &[String], job: &str) -> Result<(), Refused> {
    tokens.iter().try_for_each(|t| check_token(t, job))
}

fn check_token(token: &str, job: &str) -> Result<(), Refused> {
    let refuse = |why: &str| {
        Err(Refused(format!(
            "argument '{}' {why}",
            crate::names::clip(token)
        )))
    };
    if token.contains('\0') || token.contains('\n') || token.contains('\r') {
        return refuse("contains control characters");
    }
    if token.starts_with("-/") {
        return refuse("reads its value from a file");
    }
    if token.contains("://") {
        return refuse("names a URL");
    }
    let lower = token.to_ascii_lowercase();
    for (i, _) in lower.match_indices(':') {
        // Filter graphs escape the colon (`pipe\:0`); look through the escapes.
        let before = lower[..i].trim_end_matches('\\');
        let word_start = before
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '+' || c == '_'))
            .map_or(0, |p| p + 1);
        let word = &before[word_start..];
        // `file:`, `pipe:` and the like, including `hls+file:` style composites.
        if word.split('+').any(|w| PROTOCOLS.contains(&w)) {
            return refuse("names a protocol");
        }
    }
    for (i, _) in token.match_indices('/') {
        let starts_path = i == 0 || token[..i].ends_with(PATH_LEADERS);
        if starts_path && !token[i..].starts_with(job) {
            return refuse("names a path outside the job");
        }
    }
    if token
        .split(['/', '\\', '\'', '=', ':'])
        .any(|part| part == "..")
    {
        return refuse("names a parent directory");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const JOB: &str = "/data/scratch/job1";

    #[test]
    fn tokens_a_plugin_must_never_return() {
        let cases = [
            ("/etc/passwd", "outside the job"),
            ("movie=/etc/passwd", "outside the job"),
            ("drawtext=textfile='/etc/passwd'", "outside the job"),
            ("file:/etc/passwd", "protocol"),
            ("subfile,,start,0,end,0,,:/x", "outside the job"),
            ("-/filter", "from a file"),
            ("https://example.com/a.m3u8", "URL"),
            ("movie=tcp\\://127.0.0.1\\:80", "URL"),
            ("/data/scratch/job1/../other/x", "parent"),
            ("a\nb", "control"),
            ("amovie=pipe\\:0", "protocol"),
            ("hls+file:x", "protocol"),
        ];
        for (token, why) in cases {
            let err = check_token(token, JOB).expect_err(token);
            assert!(err.0.contains(why), "{token}: {}", err.0);
        }
    }

    #[test]
    fn ordinary_tokens_pass() {
        for token in [
            "scale=iw/2:-1",
            "fps=1/2",
            "-c:v",
            "libx264",
            "-crf",
            "23",
            "overlay=W-w-10:10",
            "[0:v][1:v]overlay[out]",
            "movie=/data/scratch/job1/in/1.png",
            "drawtext=text='Time\\: 5':x=10",
            "setpts=PTS/2",
            "-metadata",
            "title=My clip",
            "crop=in_w/2:in_h/2",
            "0:a:0",
        ] {
            assert_eq!(check_token(token, JOB), Ok(()), "{token}");
        }
    }

    #[test]
    fn the_concat_demuxer_reads_only_checked_lists() {
        use crate::plugins::types::CommandPart;
        let staged: Vec<StagedInput> = ["in/0.ffconcat", "in/1.txt"]
            .iter()
            .map(|p| StagedInput {
                name: "x".into(),
                path: format!("{JOB}/{p}"),
            })
            .collect();
        let command = |input: usize, args: &[&str]| BuiltCommand {
            global_args: vec![],
            inputs: vec![CommandPart {
                args: args.iter().map(|a| a.to_string()).collect(),
                path: staged[input].path.clone(),
            }],
            outputs: vec![CommandPart {
                args: vec![],
                path: format!("{JOB}/out/o.mp4"),
            }],
            decisions: vec![],
        };
        let (job, out) = (Path::new(JOB), Path::new(JOB).join("out"));
        let list = ffmpeg_argv(
            &command(0, &["-f", "concat", "-safe", "0"]),
            &staged,
            job,
            &out,
        );
        assert!(list.is_ok(), "{list:?}");
        for args in [&["-f", "concat"][..], &["-safe", "0"]] {
            let err = ffmpeg_argv(&command(1, args), &staged, job, &out).unwrap_err();
            assert!(
                err.0.contains("not a concat list the host checked"),
                "{}",
                err.0
            );
        }
    }
}
