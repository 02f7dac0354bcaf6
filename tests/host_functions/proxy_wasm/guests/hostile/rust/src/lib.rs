//! A proxy-wasm network filter (Rust SDK) that misbehaves on purpose, chosen by record values:
//! a value containing `boom` traps, `spin` loops forever, `hog` allocates without end,
//! `corrupt` has its bytes changed without a new CRC, `grow` makes the filter append to the
//! downstream data without end, `hold` makes it return Pause for good, `wait` makes it return
//! Pause until a second request is buffered or the stream ends, `close` closes the connection, `drop` drops that record, `twice` duplicates it, `tag` adds a header, `stamp`
//! sets the record's timestamp to 42, `leak` leaks 256 KiB per call.  Other records pass unchanged.  It logs the plugin
//! configuration, the `connection_id` and `listener_direction` properties at info.

use proxy_wasm::traits::{Context, RootContext, StreamContext};
use proxy_wasm::types::{Action, ContextType, LogLevel};

proxy_wasm::main! {{
    proxy_wasm::set_log_level(LogLevel::Info);
    proxy_wasm::set_root_context(|_| -> Box<dyn RootContext> { Box::new(Root) });
}}

struct Root;

impl Context for Root {}

impl RootContext for Root {
    fn on_configure(&mut self, _size: usize) -> bool {
        let config = self.get_plugin_configuration().unwrap_or_default();
        proxy_wasm::hostcalls::log(LogLevel::Info, &format!("configuration {}", String::from_utf8_lossy(&config))).ok();
        !config.windows(6).any(|w| w == b"refuse")
    }

    fn get_type(&self) -> Option<ContextType> {
        Some(ContextType::StreamContext)
    }

    fn create_stream_context(&self, _context_id: u32) -> Option<Box<dyn StreamContext>> {
        Some(Box::new(Hostile))
    }
}

struct Hostile;

impl Context for Hostile {}

fn le_u64(bytes: Option<Vec<u8>>) -> u64 {
    bytes.and_then(|b| b.try_into().ok()).map(u64::from_le_bytes).unwrap_or(u64::MAX)
}

impl StreamContext for Hostile {
    fn on_new_connection(&mut self) -> Action {
        let id = le_u64(self.get_property(vec!["connection_id"]));
        let direction = le_u64(self.get_property(vec!["listener_direction"]));
        proxy_wasm::hostcalls::log(LogLevel::Info, &format!("connection {id} direction {direction}")).ok();
        Action::Continue
    }

    fn on_downstream_data(&mut self, data_size: usize, end_of_stream: bool) -> Action {
        let data = self.get_downstream_data(0, data_size).unwrap_or_default();
        let has = |word: &[u8]| data.windows(word.len()).any(|w| w == word);
        if has(b"boom") {
            panic!("boom");
        }
        if has(b"spin") {
            let mut x: u64 = 1;
            loop {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
                if x == 0 {
                    break;
                }
            }
        }
        if has(b"hog") {
            let mut hoard: Vec<Vec<u8>> = Vec::new();
            loop {
                hoard.push(vec![1u8; 1 << 20]);
            }
        }
        if has(b"leak") {
            // as a filter that never frees a buffer: full in the end (black_box: the compiler keeps it)
            std::hint::black_box(Box::leak(vec![1u8; 256 << 10].into_boxed_slice()));
        }
        if has(b"grow") {
            let chunk = vec![0u8; 1 << 20];
            loop {
                self.set_downstream_data(usize::MAX, 0, &chunk);
            }
        }
        if has(b"hold") {
            return Action::Pause;
        }
        if has(b"wait") && !end_of_stream && requests(&data) < 2 {
            return Action::Pause; // lets the data through once a second request is behind it
        }
        if has(b"close") {
            self.close_downstream();
            return Action::Continue;
        }
        if has(b"corrupt") {
            let mut changed = data.clone();
            let at = changed.len() - 1;
            changed[at] ^= 0x20;
            self.set_downstream_data(0, data_size, &changed);
            return Action::Continue;
        }
        if has(b"drop") || has(b"twice") || has(b"tag") || has(b"stamp") {
            match produce::rewrite(&data) {
                Ok(rewritten) => self.set_downstream_data(0, data_size, &rewritten),
                Err(reason) => panic!("{reason}"),
            }
        }
        Action::Continue
    }
}

/// How many size-prefixed requests `data` holds.
fn requests(data: &[u8]) -> usize {
    let (mut at, mut count) = (0, 0);
    while at + 4 <= data.len() {
        at += 4 + i32::from_be_bytes(data[at..at + 4].try_into().unwrap()) as usize;
        count += 1;
    }
    count
}

mod produce;
