//! The bindings of `wit/0.2.0/plugin.wit`, generated once: one module per world, sharing the
//! `types` and `host` interfaces, so a task or a refusal is the same Rust type in every world
//! (and in the default plugins' libraries). Plugins use the re-exports of the crate root and the
//! `export_*!` macros rather than these modules.
//!
//! The worlds are generated without `configure`, which has a module of its own: every world
//! exports it, and one interface generated three times would define its export glue three times.

pub mod builder {
    wit_bindgen::generate!({
        path: "../../wit/0.2.0",
        inline: "package mediaforge:sdk; world command-builder { import mediaforge:plugin/host@0.2.0; export mediaforge:plugin/builder@0.2.0; }",
        world: "mediaforge:sdk/command-builder",
        pub_export_macro: true,
        export_macro_name: "__export_command_builder_world",
        default_bindings_module: "mediaforge_plugin::bindings::builder",
        generate_all,
    });
}

pub mod translator {
    wit_bindgen::generate!({
        path: "../../wit/0.2.0",
        inline: "package mediaforge:sdk; world translator { import mediaforge:plugin/host@0.2.0; import mediaforge:plugin/llm@0.2.0; export mediaforge:plugin/translate@0.2.0; }",
        world: "mediaforge:sdk/translator",
        pub_export_macro: true,
        export_macro_name: "__export_translator_world",
        default_bindings_module: "mediaforge_plugin::bindings::translator",
        with: {
            "mediaforge:plugin/types@0.2.0": crate::bindings::builder::mediaforge::plugin::types,
            "mediaforge:plugin/host@0.2.0": crate::bindings::builder::mediaforge::plugin::host,
        },
        generate_all,
    });
}

pub mod formatter {
    wit_bindgen::generate!({
        path: "../../wit/0.2.0",
        inline: "package mediaforge:sdk; world webhook-formatter { import mediaforge:plugin/host@0.2.0; export mediaforge:plugin/format@0.2.0; }",
        world: "mediaforge:sdk/webhook-formatter",
        pub_export_macro: true,
        export_macro_name: "__export_webhook_formatter_world",
        default_bindings_module: "mediaforge_plugin::bindings::formatter",
        with: {
            "mediaforge:plugin/types@0.2.0": crate::bindings::builder::mediaforge::plugin::types,
            "mediaforge:plugin/host@0.2.0": crate::bindings::builder::mediaforge::plugin::host,
        },
        generate_all,
    });
}

pub mod configure {
    wit_bindgen::generate!({
        path: "../../wit/0.2.0",
        inline: "package mediaforge:sdk; world configure { export mediaforge:plugin/configure@0.2.0; }",
        world: "mediaforge:sdk/configure",
        pub_export_macro: true,
        export_macro_name: "__export_configure_world",
        default_bindings_module: "mediaforge_plugin::bindings::configure",
        generate_all,
    });
}
