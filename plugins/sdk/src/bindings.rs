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

/// WIT 0.3.0's one new world, `recipe` (`wit/0.3.0/plugin.wit`). Its `types` are 0.2.0's and its
/// input facts the translator's, so a task or an input is the same Rust type here too; its
/// `host` is its own (the 0.3.0 import), which the recipe glue reads the config through.
pub mod recipe {
    wit_bindgen::generate!({
        path: "../../wit/0.3.0",
        inline: "package mediaforge:sdk; world recipe { import mediaforge:plugin/host@0.3.0; export mediaforge:plugin/recipes@0.3.0; }",
        world: "mediaforge:sdk/recipe",
        pub_export_macro: true,
        export_macro_name: "__export_recipe_world",
        default_bindings_module: "mediaforge_plugin::bindings::recipe",
        with: {
            "mediaforge:plugin/types@0.3.0": crate::bindings::builder::mediaforge::plugin::types,
            "mediaforge:plugin/facts@0.3.0": crate::bindings::translator::exports::mediaforge::plugin::translate,
        },
        generate_all,
    });
}

/// WIT 0.3.0's `translator` world: 0.2.0's, with the recipes on offer and an answer that may be
/// one of them. Its `types` and facts are the same Rust types as above; its `llm` records are
/// its own (the records are unchanged, the interface name is 0.3.0's).
pub mod translator_v3 {
    wit_bindgen::generate!({
        path: "../../wit/0.3.0",
        inline: "package mediaforge:sdk; world translator-v3 { import mediaforge:plugin/host@0.3.0; import mediaforge:plugin/llm@0.3.0; export mediaforge:plugin/translate@0.3.0; }",
        world: "mediaforge:sdk/translator-v3",
        pub_export_macro: true,
        export_macro_name: "__export_translator_v3_world",
        default_bindings_module: "mediaforge_plugin::bindings::translator_v3",
        with: {
            "mediaforge:plugin/types@0.3.0": crate::bindings::builder::mediaforge::plugin::types,
            "mediaforge:plugin/facts@0.3.0": crate::bindings::translator::exports::mediaforge::plugin::translate,
            "mediaforge:plugin/host@0.3.0": crate::bindings::recipe::mediaforge::plugin::host,
        },
        generate_all,
    });
}

/// `configure` under 0.3.0's name, for recipe and translator components.
pub mod configure_v3 {
    wit_bindgen::generate!({
        path: "../../wit/0.3.0",
        inline: "package mediaforge:sdk; world configure-v3 { export mediaforge:plugin/configure@0.3.0; }",
        world: "mediaforge:sdk/configure-v3",
        pub_export_macro: true,
        export_macro_name: "__export_configure_v3_world",
        default_bindings_module: "mediaforge_plugin::bindings::configure_v3",
        generate_all,
    });
}
