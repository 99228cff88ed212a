//! The default offline translator as a WebAssembly component. The logic, the bindings and the
//! `Guest` implementation live in the `translator` library crate (`..`); this crate only
//! exports them, so other plugins can use that library without exporting it too.

#[cfg(target_arch = "wasm32")]
use grammar::component::Translator;

#[cfg(target_arch = "wasm32")]
grammar::export!(Translator with_types_in grammar);
