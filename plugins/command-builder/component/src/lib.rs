//! The default command builder as a WebAssembly component. The logic, the bindings and the
//! `Guest` implementation live in the `command-builder` library crate (`..`); this crate only
//! exports them, so other plugins can use that library without exporting it too.

#[cfg(target_arch = "wasm32")]
use policy::glue::Builder;

#[cfg(target_arch = "wasm32")]
policy::export!(Builder with_types_in policy);
