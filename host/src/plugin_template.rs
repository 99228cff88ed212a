//! `mediaforge plugin new`: a plugin crate from the templates in `host/templates/plugin/`
//! (embedded in the binary), depending on the SDK (`plugins/sdk`) by path. It builds with
//! `cargo build --release --target wasm32-wasip2` and passes `plugin check` unchanged.

use std::path::{Path, PathBuf};

use crate::plugins::World;

const CARGO_TOML: &str = include_str!("../templates/plugin/Cargo.toml.in");
const GITIGNORE: &str = include_str!("../templates/plugin/gitignore.in");
const BUILDER: &str = include_str!("../templates/plugin/command-builder.rs.in");
const TRANSLATOR: &str = include_str!("../templates/plugin/translator.rs.in");
const FORMATTER: &str = include_str!("../templates/plugin/webhook-formatter.rs.in");
const RECIPE: &str = include_str!("../templates/plugin/recipe.rs.in");

/// The SDK of the repository this binary was built from (`--sdk` when it has moved).
const BUILT_SDK: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../plugins/sdk");

/// What `plugin new` was asked for.
pub struct NewPlugin<'a> {
    pub world: World,
    pub name: &'a str,
    pub dir: Option<&'a Path>,
    pub sdk: Option<&'a Path>,
}

/// Writes the crate; `Ok`: the lines telling the author what to do next. `Err`: one line,
/// nothing was written.
pub fn create(new: &NewPlugin) -> Result<Vec<String>, String> {
    let name = new.name;
    let valid = name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_');
    if !valid {
        return Err(format!(
            "'{name}' is not a plugin name: lower-case letters, digits, '-' and '_', starting with a letter"
        ));
    }
    let sdk = find_sdk(new.sdk)?;
    let dir = new
        .dir
        .map_or_else(|| PathBuf::from(name), Path::to_path_buf);
    if dir
        .read_dir()
        .is_ok_and(|mut entries| entries.next().is_some())
    {
        return Err(format!("{} exists and is not empty", dir.display()));
    }
    let (source, extra) = match new.world {
        World::CommandBuilder => (BUILDER, dependency("command-builder", &sdk)),
        World::Translator => (TRANSLATOR, dependency("translator", &sdk)),
        World::WebhookFormatter => (FORMATTER, String::new()),
        World::Recipe => (RECIPE, String::new()),
    };
    // The version the SDK's export macro builds for the world.
    let wit = match new.world {
        World::Recipe | World::Translator => "0.3.0",
        World::CommandBuilder | World::WebhookFormatter => "0.2.0",
    };
    let fill = |text: &str| {
        text.replace("{{name}}", name)
            .replace("{{sdk}}", &sdk.display().to_string())
            .replace("{{extra_dependencies}}", &extra)
    };
    let write = |path: &Path, text: &str| {
        std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
    };
    std::fs::create_dir_all(dir.join("src"))
        .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    write(&dir.join("Cargo.toml"), &fill(CARGO_TOML))?;
    write(&dir.join(".gitignore"), GITIGNORE)?;
    write(&dir.join("src/lib.rs"), &fill(source))?;
    // The versions the SDK is built and tested with (and no registry look-up to build offline).
    if let Ok(lock) = std::fs::read_to_string(sdk.join("../Cargo.lock")) {
        write(&dir.join("Cargo.lock"), &lock)?;
    }
    let wasm = format!(
        "target/wasm32-wasip2/release/{}.wasm",
        name.replace('-', "_")
    );
    Ok(vec![
        format!(
            "created {} ({} plugin, WIT {wit}, SDK {})",
            dir.display(),
            new.world.name(),
            sdk.display()
        ),
        format!("  cd {}", dir.display()),
        "  cargo test                                        # natively, on the SDK's samples"
            .into(),
        "  cargo build --release --target wasm32-wasip2".into(),
        format!("  mediaforge plugin check {wasm}"),
        format!(
            "  mediaforge plugin run {} {wasm} INPUT.json     # docs/plugins/samples/",
            new.world.name()
        ),
    ])
}

/// `--sdk`, else a `plugins/sdk` above the current directory (inside a checkout), else the one
/// this binary was built from; absolute, since the crate may be written anywhere.
fn find_sdk(given: Option<&Path>) -> Result<PathBuf, String> {
    let is_sdk = |p: &Path| p.join("Cargo.toml").is_file() && p.join("src/lib.rs").is_file();
    let found = match given {
        Some(p) => Some(p.to_path_buf()).filter(|p| is_sdk(p)).ok_or_else(|| {
            format!(
                "--sdk {}: not the SDK (the plugins/sdk directory of a Mediaforge checkout)",
                p.display()
            )
        })?,
        None => std::env::current_dir()
            .ok()
            .and_then(|cwd| {
                cwd.ancestors()
                    .map(|a| a.join("plugins/sdk"))
                    .find(|p| is_sdk(p))
            })
            .or_else(|| Some(PathBuf::from(BUILT_SDK)).filter(|p| is_sdk(p)))
            .ok_or(
                "the SDK was not found: give --sdk PATH (the plugins/sdk directory of a Mediaforge checkout)",
            )?,
    };
    found
        .canonicalize()
        .map_err(|e| format!("{}: {e}", found.display()))
}

/// A dependency on one of the default plugins' libraries, beside the SDK.
fn dependency(package: &str, sdk: &Path) -> String {
    let dir = sdk.parent().unwrap_or(sdk).join(package);
    let crate_name = package.replace('-', "_");
    format!(
        "# The default plugin, as a library to wrap.\n{crate_name} = {{ package = \"{package}\", path = \"{}\" }}\n",
        dir.display()
    )
}
