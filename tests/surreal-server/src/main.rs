//! `surreal start …`, exactly as the released binary takes it (the community edition).
// The release build (`make bench-split`) computes the layout of SurrealDB's deepest async
// expression evaluator here, past rustc's default query depth of 128.
#![recursion_limit = "256"]
fn main() -> std::process::ExitCode {
    surrealdb_server::init(surrealdb_server::core::CommunityComposer())
}
