//! The engine's epoch clock. Running plugin code yields at every tick (`PluginHost::store`), so
//! a call's wall-clock deadline is checked even while a plugin spins; the clock runs only while
//! some store exists (a call or a load check is under way) and sleeps otherwise, so an idle
//! instance does not wake 200 times a second for nothing (issue #34).

use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use wasmtime::Engine;

/// Epoch ticks are this long: running plugin code yields to the runtime at least this often.
const TICK: Duration = Duration::from_millis(5);
/// How often a parked clock checks that its engine still exists.
const PARKED: Duration = Duration::from_secs(1);

#[derive(Default)]
struct Shared {
    /// Stores alive now.
    stores: Mutex<usize>,
    woken: Condvar,
}

/// The handle that stores take a [`Running`] from.
#[derive(Clone)]
pub struct Ticker(Arc<Shared>);

/// Keeps the clock running while held (one per store).
pub struct Running(Arc<Shared>);

impl Ticker {
    /// Starts the clock's thread; it ends when the engine is dropped.
    pub fn spawn(engine: &Engine) -> Ticker {
        let shared = Arc::new(Shared::default());
        let (weak, clock) = (engine.weak(), shared.clone());
        std::thread::Builder::new()
            .name("plugin-epoch".into())
            .spawn(move || {
                loop {
                    {
                        let mut stores = clock.stores.lock().expect("ticker lock");
                        while *stores == 0 {
                            if weak.upgrade().is_none() {
                                return;
                            }
                            stores = clock
                                .woken
                                .wait_timeout(stores, PARKED)
                                .expect("ticker lock")
                                .0;
                        }
                    }
                    let Some(engine) = weak.upgrade() else { return };
                    engine.increment_epoch();
                    drop(engine);
                    std::thread::sleep(TICK);
                }
            })
            .expect("spawning the epoch thread");
        Ticker(shared)
    }

    /// The clock runs until the returned guard drops.
    pub fn running(&self) -> Running {
        *self.0.stores.lock().expect("ticker lock") += 1;
        self.0.woken.notify_one();
        Running(self.0.clone())
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let mut stores = self.0.stores.lock().expect("ticker lock");
        *stores = stores.saturating_sub(1);
    }
}
