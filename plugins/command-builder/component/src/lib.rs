//! The default command builder as a WebAssembly component. The logic lives in the
//! `command-builder` library crate (`..`); this crate only exports it, so other plugins can use
//! that library without exporting it too.

mediaforge_plugin::export_command_builder!(policy::DefaultBuilder);
