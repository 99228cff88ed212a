//! `surreal start …`, exactly as the released binary takes it (the community edition).
fn main() -> std::process::ExitCode {
    surrealdb_server::init(surrealdb_server::core::CommunityComposer())
}
