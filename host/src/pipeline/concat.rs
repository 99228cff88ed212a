//! Concat lists (ffmpeg's concat demuxer) confined to the task's own inputs. An input is a list
//! when the task declares it (`-f concat` in its options, or a name ending `.ffconcat`; staged
//! as `in/{i}.ffconcat`) or when its bytes start with the signature ffmpeg detects lists by. The
//! host reads each list (at most `MAX_LIST_BYTES`), checks that every `file` entry names another
//! input of the task, and replaces the staged copy with a rewrite naming those inputs' staged
//! files. The command builder allows `-f concat` and `-safe` only on `*.ffconcat` inputs
//! (plugins/command-builder/README.md), and the host's argv check holds it to that
//! (`media/argv.rs`).

use std::path::Path;

use crate::error::{AppError, AppResult};
use crate::names::clip;

/// The largest list read; a timelapse of thousands of frames fits many times over.
pub const MAX_LIST_BYTES: u64 = 64 * 1024;
pub use crate::media::scratch::CONCAT_LIST_EXT as STAGED_EXT;
/// ffmpeg reads a file starting with these bytes as a concat list, whatever its name.
const SIGNATURE: &[u8] = b"ffconcat version 1.0";
/// Directives kept, each with one time value, applying to the `file` before them.
const TIMES: &[&str] = &["duration", "inpoint", "outpoint"];

/// Whether the task declares the input a concat list, before any byte is read.
pub fn declared(name: &str, options: &[String]) -> bool {
    name.to_ascii_lowercase()
        .ends_with(&format!(".{STAGED_EXT}"))
        || options.windows(2).any(|w| w[0] == "-f" && w[1] == "concat")
}

/// Whether a staged path is a declared list's.
pub fn is_staged_list(path: &str) -> bool {
    path.ends_with(&format!(".{STAGED_EXT}"))
}

/// Whether the staged file starts with the concat signature (ffmpeg would read it as a list),
/// after any ID3v2 tags: libavformat skips those before it probes a file's format, so a list
/// behind one is read as a list (issue #32).
pub async fn sniffed(path: &Path) -> AppResult<bool> {
    use tokio::io::{AsyncReadExt, AsyncSeekExt};
    let mut file = tokio::fs::File::open(path)
        .await
        .map_err(anyhow::Error::from)?;
    let mut at = 0u64;
    let mut head = [0u8; SIGNATURE.len()];
    loop {
        file.seek(std::io::SeekFrom::Start(at))
            .await
            .map_err(anyhow::Error::from)?;
        let mut n = 0;
        while n < head.len() {
            match file
                .read(&mut head[n..])
                .await
                .map_err(anyhow::Error::from)?
            {
                0 => break,
                read => n += read,
            }
        }
        match id3v2_len(&head[..n]) {
            Some(len) if at < MAX_ID3_SKIP => at += len,
            _ => return Ok(&head[..n] == SIGNATURE),
        }
    }
}

/// How far past ID3v2 tags a probe looks: libavformat's probe reads at most 1 MiB.
const MAX_ID3_SKIP: u64 = 1 << 21;

/// The length of the ID3v2 tag `head` starts with (header, body, footer), as libavformat's
/// `ff_id3v2_match` and `ff_id3v2_tag_len` read it.
fn id3v2_len(head: &[u8]) -> Option<u64> {
    let h = head.get(..10)?;
    let tagged =
        &h[..3] == b"ID3" && h[3] != 0xff && h[4] != 0xff && h[6..10].iter().all(|b| b & 0x80 == 0);
    if !tagged {
        return None;
    }
    let body = h[6..10]
        .iter()
        .fold(0u64, |len, b| (len << 7) | u64::from(b & 0x7f));
    let footer = if h[5] & 0x10 != 0 { 10 } else { 0 };
    Some(10 + body + footer)
}

/// Where a list's text starts: past the ID3v2 tags ffmpeg skips too.
fn past_id3v2(bytes: &[u8]) -> &[u8] {
    let mut at = 0usize;
    while let Some(len) = id3v2_len(&bytes[at.min(bytes.len())..]) {
        at = at.saturating_add(len as usize);
    }
    &bytes[at.min(bytes.len())..]
}

/// An input a list may name.
pub struct Target<'a> {
    /// The input's name (`@{name}`), as entries name it.
    pub name: &'a str,
    /// Its staged path; entries are rewritten to its file name (the list sits beside it).
    pub staged: &'a str,
    /// Lists do not nest.
    pub list: bool,
}

/// Replaces the staged list at `path` (input `name`) with its rewrite. The staged file may be
/// a hard link to the stored object (`storage/local.rs`), so it is unlinked, never written.
pub async fn confine(name: &str, path: &Path, targets: &[Target<'_>]) -> AppResult<()> {
    let refuse = |why: String| AppError::ConcatList {
        list: name.to_string(),
        why,
    };
    let size = tokio::fs::metadata(path)
        .await
        .map_err(anyhow::Error::from)?
        .len();
    if size > MAX_LIST_BYTES {
        return Err(refuse(format!(
            "it is larger than {} KiB",
            MAX_LIST_BYTES / 1024
        )));
    }
    let bytes = tokio::fs::read(path).await.map_err(anyhow::Error::from)?;
    let text = String::from_utf8(past_id3v2(&bytes).to_vec())
        .map_err(|_| refuse("it is not UTF-8 text".into()))?;
    let rewritten = rewrite(&text, targets).map_err(refuse)?;
    tokio::fs::remove_file(path)
        .await
        .map_err(anyhow::Error::from)?;
    tokio::fs::write(path, rewritten)
        .await
        .map_err(anyhow::Error::from)?;
    Ok(())
}

/// The list with each `file` entry pointing at a staged input, or why it cannot be.
fn rewrite(text: &str, targets: &[Target<'_>]) -> Result<String, String> {
    let mut out = String::from("ffconcat version 1.0\n");
    let mut files = 0;
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') || line == "ffconcat version 1.0" {
            continue;
        }
        let (directive, rest) = line
            .split_once(|c: char| c.is_ascii_whitespace())
            .unwrap_or((line, ""));
        if directive != "file" && !TIMES.contains(&directive) {
            return Err(format!(
                "directive '{}' is not supported (only file, duration, inpoint and outpoint)",
                clip(directive)
            ));
        }
        let (value, rest) = token(rest.trim_start())?;
        if !rest.trim().is_empty() {
            return Err(format!("line '{}' has more than one value", clip(line)));
        }
        match directive {
            "file" => {
                let target = targets.iter().find(|t| t.name == value).ok_or_else(|| {
                    format!(
                        "entry '{}' is not another input of this task (entries name the task's other inputs, by name)",
                        clip(&value)
                    )
                })?;
                if target.list {
                    return Err(format!(
                        "entry '{}' is itself a concat list; lists do not nest",
                        clip(&value)
                    ));
                }
                let file = Path::new(target.staged)
                    .file_name()
                    .and_then(|f| f.to_str())
                    .unwrap_or_default();
                out.push_str(&format!("file '{file}'\n"));
                files += 1;
            }
            d => {
                if files == 0 {
                    return Err(format!("'{d}' comes before any file entry"));
                }
                if !is_time(&value) {
                    return Err(format!("'{d} {}' is not a time", clip(&value)));
                }
                out.push_str(&format!("{d} {value}\n"));
            }
        }
    }
    if files == 0 {
        return Err("it names no file".into());
    }
    Ok(out)
}

/// One value as ffmpeg's `av_get_token` reads it: `'quoted'` runs and `\`-escaped characters,
/// up to unquoted white space; returns the value and the rest of the line.
fn token(s: &str) -> Result<(String, &str), String> {
    let mut value = String::new();
    let mut chars = s.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some((_, e)) => value.push(e),
                None => return Err("a line ends in an escape".into()),
            },
            '\'' => loop {
                match chars.next() {
                    Some((_, '\'')) => break,
                    Some((_, q)) => value.push(q),
                    None => return Err("a quote is not closed".into()),
                }
            },
            c if c.is_ascii_whitespace() => return Ok((value, &s[i..])),
            c => value.push(c),
        }
    }
    Ok((value, ""))
}

/// ffmpeg's duration syntax: `[-][HH:]MM:SS[.m...]` or `[-]S+[.m...][s|ms|us]`.
fn is_time(v: &str) -> bool {
    let v = v.strip_prefix('-').unwrap_or(v);
    let v = ["ms", "us", "s"]
        .iter()
        .find_map(|u| v.strip_suffix(u))
        .unwrap_or(v);
    !v.is_empty()
        && v.len() <= 32
        && v.starts_with(|c: char| c.is_ascii_digit())
        && v.chars()
            .all(|c| c.is_ascii_digit() || c == ':' || c == '.')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn id3v2_tags_are_skipped_as_ffmpeg_skips_them() {
        let mut tagged = b"ID3\x04\x00\x00\x00\x00\x00\x05hello".to_vec();
        tagged.extend_from_slice(b"ffconcat version 1.0\n");
        assert_eq!(id3v2_len(&tagged), Some(15));
        assert_eq!(past_id3v2(&tagged), b"ffconcat version 1.0\n");
        // With a footer (flag 0x10), and a size byte with its top bit set is no tag.
        assert_eq!(
            id3v2_len(b"ID3\x04\x00\x10\x00\x00\x01\x00"),
            Some(10 + 128 + 10)
        );
        assert_eq!(id3v2_len(b"ID3\x04\x00\x00\x80\x00\x00\x00"), None);
        assert_eq!(past_id3v2(b"plain"), b"plain");
    }

    fn targets() -> Vec<Target<'static>> {
        vec![
            Target {
                name: "list.txt",
                staged: "/s/in/0.ffconcat",
                list: true,
            },
            Target {
                name: "a b.mp4",
                staged: "/s/in/1.mp4",
                list: false,
            },
            Target {
                name: "c.mp4",
                staged: "/s/in/2.mp4",
                list: false,
            },
        ]
    }

    #[test]
    fn entries_become_staged_files_with_their_times() {
        let list = "ffconcat version 1.0\n# a comment\nfile 'a b.mp4'\ninpoint 1.5\n\n  file c.mp4\r\nduration 00:00:02.5\noutpoint 3s\nfile a\\ b.mp4\n";
        assert_eq!(
            rewrite(list, &targets()).unwrap(),
            "ffconcat version 1.0\nfile '1.mp4'\ninpoint 1.5\nfile '2.mp4'\nduration 00:00:02.5\noutpoint 3s\nfile '1.mp4'\n"
        );
    }

    #[test]
    fn anything_but_another_input_is_refused_naming_it() {
        let cases = [
            (
                "file '/etc/passwd'",
                "entry '/etc/passwd' is not another input",
            ),
            ("file ../x/c.mp4", "entry '../x/c.mp4' is not another input"),
            (
                "file http://127.0.0.1:9/x.mp4",
                "entry 'http://127.0.0.1:9/x.mp4'",
            ),
            ("file file:c.mp4", "entry 'file:c.mp4'"),
            ("file 1.mp4", "entry '1.mp4' is not another input"),
            ("file list.txt", "lists do not nest"),
            ("file c.mp4\noption safe 0", "directive 'option'"),
            ("file c.mp4\nstream", "directive 'stream'"),
            ("duration 1\nfile c.mp4", "before any file"),
            ("file c.mp4\nduration 1;x", "not a time"),
            ("file 'c.mp4", "quote is not closed"),
            ("file c.mp4 d.mp4", "more than one value"),
            ("# nothing", "names no file"),
        ];
        for (list, why) in cases {
            let err = rewrite(list, &targets()).expect_err(list);
            assert!(err.contains(why), "{list}: {err}");
        }
    }

    #[test]
    fn declared_by_options_or_name() {
        let opts = |o: &[&str]| o.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(declared("list.txt", &opts(&["-f", "concat", "-safe", "0"])));
        assert!(declared("Shots.FFCONCAT", &[]));
        assert!(!declared("list.txt", &opts(&["-f", "mp4"])));
        assert!(!declared("concat.mp4", &opts(&["-c", "concat"])));
    }
}
