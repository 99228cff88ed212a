//! The default offline translator as a WebAssembly component. The logic lives in the
//! `translator` library crate (`..`); this crate only exports it, so other plugins can use that
//! library without exporting it too.

mediaforge_plugin::export_translator!(grammar::DefaultTranslator);
