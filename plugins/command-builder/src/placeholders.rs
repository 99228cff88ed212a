//! `@{name}` placeholders: the only way a tenant's filter graph or option can refer to a file.
//! `name` is the tenant's name of one of the task's own inputs; it becomes that input's staged
//! path (callers escape it for the context it lands in).

use crate::StagedInput;

/// The staged path for a tenant name. Two inputs with the same name and different paths make
/// the name ambiguous.
pub fn lookup<'a>(name: &str, inputs: &'a [StagedInput]) -> Result<&'a str, String> {
    let mut hits = inputs.iter().filter(|i| i.name == name);
    let first = hits.next().ok_or_else(|| {
        format!(
            "@{{{}}} does not name an input of this task",
            crate::show(name)
        )
    })?;
    if hits.any(|other| other.path != first.path) {
        return Err(format!(
            "@{{{}}} is ambiguous: several inputs have that name",
            crate::show(name)
        ));
    }
    Ok(&first.path)
}

/// If `value` is exactly one placeholder, its name.
pub fn exact(value: &str) -> Option<&str> {
    let name = value.strip_prefix("@{")?.strip_suffix('}')?;
    (!name.contains('}')).then_some(name)
}

/// Replaces every placeholder in `value` with the input's staged path. Returns the new value
/// and whether any was found.
pub fn resolve(value: &str, inputs: &[StagedInput]) -> Result<(String, bool), String> {
    substitute(value, inputs, |input| &input.path)
}

/// For text that ends up in the output (metadata, drawn text, playlist URLs): placeholders
/// become the input's own name, so no path of the host is ever written into a tenant's file.
pub fn resolve_names(value: &str, inputs: &[StagedInput]) -> Result<(String, bool), String> {
    substitute(value, inputs, |input| &input.name)
}

fn substitute(
    value: &str,
    inputs: &[StagedInput],
    part: impl for<'a> Fn(&'a StagedInput) -> &'a str,
) -> Result<(String, bool), String> {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    let mut found = false;
    while let Some(at) = rest.find("@{") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let end = after
            .find('}')
            .ok_or("a '@{' placeholder is not closed by '}'")?;
        let path = lookup(&after[..end], inputs)?;
        let input = inputs
            .iter()
            .find(|i| i.path == path)
            .expect("lookup returns an input's path");
        out.push_str(part(input));
        rest = &after[end + 1..];
        found = true;
    }
    out.push_str(rest);
    Ok((out, found))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inputs() -> Vec<StagedInput> {
        vec![
            StagedInput {
                name: "in.mp4".into(),
                path: "/job/in/0".into(),
            },
            StagedInput {
                name: "logo.png".into(),
                path: "/job/in/1".into(),
            },
        ]
    }

    #[test]
    fn text_gets_names_not_paths() {
        assert_eq!(
            resolve_names("by @{logo.png} on @{in.mp4}", &inputs()).unwrap(),
            ("by logo.png on in.mp4".into(), true)
        );
        assert!(resolve_names("@{nope}", &inputs()).is_err());
    }

    #[test]
    fn resolves() {
        assert_eq!(
            resolve("@{logo.png}", &inputs()).unwrap(),
            ("/job/in/1".into(), true)
        );
        assert_eq!(
            resolve("a @{in.mp4} b", &inputs()).unwrap(),
            ("a /job/in/0 b".into(), true)
        );
        assert_eq!(
            resolve("plain", &inputs()).unwrap(),
            ("plain".into(), false)
        );
        assert!(
            resolve("@{nope}", &inputs())
                .unwrap_err()
                .contains("does not name an input")
        );
        assert!(resolve("@{in.mp4", &inputs()).is_err());
        assert_eq!(exact("@{in.mp4}"), Some("in.mp4"));
        assert_eq!(exact("x@{in.mp4}"), None);
    }

    #[test]
    fn ambiguous_names() {
        let mut two = inputs();
        two.push(StagedInput {
            name: "in.mp4".into(),
            path: "/job/in/2".into(),
        });
        assert!(lookup("in.mp4", &two).unwrap_err().contains("ambiguous"));
    }
}
