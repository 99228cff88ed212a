//! ffmpeg's filter graph syntax, parsed the way libavfilter's `graphparser.c` and
//! `process_options` read it, and written back with our own escaping.
//!
//! Two quoting levels matter. Level 1 (the graph): a filter's argument string runs to an
//! unquoted `[`, `]`, `,` or `;`. Level 2 (the filter): that string splits at unquoted `:` into
//! `key=value` pairs, or bare values taken in the filter's option order (only before the first
//! `key=`). At both levels `'...'` quotes literally and `\x` stands for `x`; leading and trailing
//! whitespace is dropped unless quoted or escaped.
//!
//! The command we hand to ffmpeg is re-serialised from the parsed graph, never the tenant's
//! string, so ffmpeg sees exactly the values the policy checked.

/// What follows a filter in its chain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sep {
    /// `,`: the next filter takes this one's unlabelled outputs.
    Comma,
    /// `;`: a new chain starts.
    Semicolon,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arg {
    /// `None` for a positional value.
    pub key: Option<String>,
    /// The value with both quoting levels removed.
    pub value: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Filter {
    pub inputs: Vec<String>,
    pub name: String,
    /// The instance name after `@`.
    pub id: Option<String>,
    pub args: Vec<Arg>,
    pub outputs: Vec<String>,
    pub sep: Option<Sep>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Graph {
    pub filters: Vec<Filter>,
}

const WHITESPACE: &[char] = &[' ', '\n', '\t', '\r'];

/// `av_get_token`: reads up to an unquoted, unescaped character of `terms`, removing one level
/// of quoting. Returns the token and the rest of the input (starting at the terminator).
fn get_token<'a>(input: &'a str, terms: &[char]) -> (String, &'a str) {
    let mut rest = input.trim_start_matches(WHITESPACE);
    let mut out = String::new();
    // Length of `out` that must survive trailing-whitespace trimming (quoted or escaped text).
    let mut keep = 0;
    loop {
        let mut chars = rest.chars();
        let Some(c) = chars.next() else { break };
        if terms.contains(&c) {
            break;
        }
        rest = chars.as_str();
        if c == '\\' {
            if let Some(next) = rest.chars().next() {
                out.push(next);
                rest = &rest[next.len_utf8()..];
                keep = out.len();
            } else {
                // A trailing lone backslash is kept, as `av_get_token` does.
                out.push('\\');
            }
        } else if c == '\'' {
            match rest.find('\'') {
                Some(end) => {
                    out.push_str(&rest[..end]);
                    rest = &rest[end + 1..];
                    keep = out.len();
                }
                None => {
                    out.push_str(rest);
                    rest = "";
                }
            }
        } else {
            out.push(c);
        }
    }
    let trimmed = out.trim_end_matches(WHITESPACE).len().max(keep);
    out.truncate(trimmed);
    (out, rest)
}

/// Characters ffmpeg allows in an option key (`is_key_char` in libavutil/opt.c).
fn is_key_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '/' | '.')
}

/// Splits a level-1-unescaped argument string into options (`process_options`).
pub fn parse_args(args: &str) -> Result<Vec<Arg>, String> {
    let mut out = Vec::new();
    let mut rest = args;
    let mut seen_key = false;
    while !rest.is_empty() {
        // `get_key`: key characters, optional whitespace, then `=`.
        let start = rest.trim_start_matches(WHITESPACE);
        let key_len = start.find(|c| !is_key_char(c)).unwrap_or(start.len());
        let after_key = start[key_len..].trim_start_matches(WHITESPACE);
        let key = if let Some(after_eq) = after_key.strip_prefix('=') {
            let key = start[..key_len].to_string();
            rest = after_eq;
            seen_key = true;
            Some(key)
        } else if seen_key {
            return Err(format!(
                "value '{}' has no option name; after a key=value option every option needs a name",
                crate::show(start)
            ));
        } else {
            None
        };
        let (value, tail) = get_token(rest, &[':']);
        out.push(Arg { key, value });
        rest = tail.strip_prefix(':').unwrap_or(tail);
    }
    Ok(out)
}

/// Reads `[label]` link labels.
fn parse_labels(mut rest: &str) -> Result<(Vec<String>, &str), String> {
    let mut labels = Vec::new();
    while let Some(after) = rest.strip_prefix('[') {
        let (name, tail) = get_token(after, &[']']);
        let Some(tail) = tail.strip_prefix(']') else {
            return Err("a '[' link label is not closed by ']'".into());
        };
        crate::values::check_label(&name)?;
        labels.push(name);
        rest = tail.trim_start_matches(WHITESPACE);
    }
    Ok((labels, rest))
}

/// Parses a filter graph (`avfilter_graph_parse2`).
pub fn parse(graph: &str) -> Result<Graph, String> {
    let mut filters = Vec::new();
    let mut rest = graph;
    loop {
        rest = rest.trim_start_matches(WHITESPACE);
        let (inputs, after_inputs) = parse_labels(rest)?;
        let (full_name, after_name) = get_token(after_inputs, &['=', ',', ';', '[']);
        if full_name.is_empty() {
            return Err(if filters.is_empty() && rest.is_empty() {
                "the filter graph is empty".into()
            } else {
                "a filter name is missing (empty filter between separators?)".into()
            });
        }
        let (name, id) = match full_name.split_once('@') {
            Some((n, i)) => (n.to_string(), Some(i.to_string())),
            None => (full_name, None),
        };
        let word = |t: &str, extra: &[char]| {
            !t.is_empty()
                && t.len() <= 64
                && t.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || extra.contains(&c))
        };
        if !word(&name, &[]) || id.as_deref().is_some_and(|i| !word(i, &['.', '-'])) {
            return Err(format!(
                "'{}' is not a valid filter name",
                crate::show(&name)
            ));
        }
        let (args, after_args) = match after_name.strip_prefix('=') {
            Some(a) => {
                let (raw, tail) = get_token(a, &['[', ']', ',', ';']);
                (parse_args(&raw)?, tail)
            }
            None => (Vec::new(), after_name),
        };
        let (outputs, after_outputs) = parse_labels(after_args)?;
        rest = after_outputs.trim_start_matches(WHITESPACE);
        let sep = match rest.chars().next() {
            None => None,
            Some(',') => Some(Sep::Comma),
            Some(';') => Some(Sep::Semicolon),
            Some(other) => {
                return Err(format!(
                    "unexpected '{other}' after filter '{}'",
                    crate::show(&name)
                ));
            }
        };
        filters.push(Filter {
            inputs,
            name,
            id,
            args,
            outputs,
            sep,
        });
        match sep {
            Some(_) => rest = &rest[1..],
            None => break,
        }
    }
    Ok(Graph { filters })
}

/// Backslash-escapes `specials`, `\`, `'` and leading/trailing whitespace.
fn escape(value: &str, specials: &[char]) -> String {
    let first = value.len() - value.trim_start_matches(WHITESPACE).len();
    let last = value.trim_end_matches(WHITESPACE).len();
    let mut out = String::with_capacity(value.len() + 8);
    for (i, c) in value.char_indices() {
        let edge_space = WHITESPACE.contains(&c) && (i < first || i >= last);
        if c == '\\' || c == '\'' || specials.contains(&c) || edge_space {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Level-2 escaping of one option value. A positional value that ffmpeg's `get_key` would read
/// as `key=value` gets its `=` escaped.
fn escape_value(value: &str, positional: bool) -> String {
    let mut out = escape(value, &[':']);
    if positional {
        let body = out.trim_start_matches(WHITESPACE);
        let key_len = body.find(|c| !is_key_char(c)).unwrap_or(body.len());
        let after = body[key_len..].trim_start_matches(WHITESPACE);
        if after.starts_with('=') {
            let at = out.len() - after.len();
            out.insert(at, '\\');
        }
    }
    out
}

/// The argument string of one filter, escaped for both levels.
pub fn serialize_args(args: &[Arg]) -> String {
    let level2: Vec<String> = args
        .iter()
        .map(|a| match &a.key {
            Some(k) => format!("{k}={}", escape_value(&a.value, false)),
            None => escape_value(&a.value, true),
        })
        .collect();
    escape(&level2.join(":"), &['[', ']', ',', ';'])
}

/// Writes the graph back in ffmpeg syntax.
pub fn serialize(graph: &Graph) -> String {
    let mut out = String::new();
    for f in &graph.filters {
        for label in &f.inputs {
            out.push_str(&format!("[{label}]"));
        }
        out.push_str(&f.name);
        if let Some(id) = &f.id {
            out.push('@');
            out.push_str(id);
        }
        if !f.args.is_empty() {
            out.push('=');
            out.push_str(&serialize_args(&f.args));
        }
        for label in &f.outputs {
            out.push_str(&format!("[{label}]"));
        }
        match f.sep {
            Some(Sep::Comma) => out.push(','),
            Some(Sep::Semicolon) => out.push(';'),
            None => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arg(key: Option<&str>, value: &str) -> Arg {
        Arg {
            key: key.map(str::to_string),
            value: value.to_string(),
        }
    }

    #[test]
    fn tokens() {
        assert_eq!(get_token("  abc  ,x", &[',']), ("abc".into(), ",x"));
        assert_eq!(get_token("a\\,b,c", &[',']), ("a,b".into(), ",c"));
        assert_eq!(get_token("'a,b' ,c", &[',']), ("a,b".into(), ",c"));
        assert_eq!(get_token("'a ' ", &[',']), ("a ".into(), ""));
        assert_eq!(get_token("a\\ ", &[',']), ("a ".into(), ""));
    }

    #[test]
    fn graph_structure() {
        let g =
            parse("[0:v][1:v]overlay=x=10:y=main_h-overlay_h-10[v]; [0:a]volume=0.5 [a]").unwrap();
        assert_eq!(g.filters.len(), 2);
        assert_eq!(g.filters[0].inputs, vec!["0:v", "1:v"]);
        assert_eq!(
            g.filters[0].args,
            vec![arg(Some("x"), "10"), arg(Some("y"), "main_h-overlay_h-10")]
        );
        assert_eq!(g.filters[0].outputs, vec!["v"]);
        assert_eq!(g.filters[0].sep, Some(Sep::Semicolon));
        assert_eq!(g.filters[1].args, vec![arg(None, "0.5")]);
        assert_eq!(g.filters[1].outputs, vec!["a"]);
    }

    #[test]
    fn quoting_levels() {
        // Level 1 quotes protect the comma; level 2 splits at ':'.
        let g = parse("select='eq(pict_type,I)',scale=w=320:h=-2").unwrap();
        assert_eq!(g.filters[0].args, vec![arg(None, "eq(pict_type,I)")]);
        assert_eq!(
            g.filters[1].args,
            vec![arg(Some("w"), "320"), arg(Some("h"), "-2")]
        );
        // Nested: the level-2 escape survives level 1 as `\\`.
        let g = parse("drawtext=text='a\\:b':fontsize=20").unwrap();
        assert_eq!(
            g.filters[0].args,
            vec![arg(Some("text"), "a:b"), arg(Some("fontsize"), "20")]
        );
        let g = parse("drawtext=text=a\\\\\\:b\\,c").unwrap();
        assert_eq!(g.filters[0].args, vec![arg(Some("text"), "a:b,c")]);
        // Instance names.
        let g = parse("scale@small=320:240").unwrap();
        assert_eq!(g.filters[0].id.as_deref(), Some("small"));
    }

    #[test]
    fn positional_after_key_is_an_error() {
        assert!(parse("scale=w=1:2").is_err());
    }

    #[test]
    fn syntax_errors() {
        for bad in [
            "",
            "scale=1:1,",
            "scale=1:1;;hflip",
            "[in",
            "[]scale",
            "scale]x",
            "[a b]scale",
        ] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn round_trip() {
        let cases = [
            "[0:v]scale=320:-2,format=yuv420p[v]",
            "drawtext=text='It'\\''s 10\\:00, [ok]; \\\\ done ':x=10",
            "pan=stereo|c0=FL|c1=FR",
            "select='gte(t\\,5)',setpts=PTS-STARTPTS",
            "movie='/a b/c,d:e.png'[logo];[0:v][logo]overlay",
            "aformat=sample_fmts=fltp:channel_layouts=stereo",
            "drawtext=text=\\ padded\\ ",
            "drawtext=text=a\\=b",
            "drawtext='\\=x'",
        ];
        for case in cases {
            let g = parse(case).unwrap();
            let again = parse(&serialize(&g)).unwrap();
            assert_eq!(g, again, "{case} -> {}", serialize(&g));
        }
    }

    #[test]
    fn serialize_escapes_both_levels() {
        let args = vec![arg(Some("text"), "a:b,c'd\\e")];
        assert_eq!(serialize_args(&args), "text=a\\\\:b\\,c\\\\\\'d\\\\\\\\e");
        let g = Graph {
            filters: vec![Filter {
                inputs: vec![],
                name: "movie".into(),
                id: None,
                args: vec![arg(None, "/job/in/a:b,[c];d.png")],
                outputs: vec!["m".into()],
                sep: None,
            }],
        };
        let text = serialize(&g);
        assert_eq!(parse(&text).unwrap(), g);
    }
}
