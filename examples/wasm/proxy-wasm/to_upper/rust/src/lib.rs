//! A proxy-wasm network filter (Rust SDK) that upper-cases the value of every
//! record in the Kafka Produce requests it sees, as a Kafka proxy would run it.
//!
//! It buffers (returns Pause) until whole requests have arrived, rewrites each
//! Produce request's record batches in place (ASCII upper-casing keeps every
//! length) and recomputes each batch's CRC-32C, as a broker checks it.

use proxy_wasm::traits::{Context, RootContext, StreamContext};
use proxy_wasm::types::{Action, ContextType, LogLevel};

mod kafka;

proxy_wasm::main! {{
    proxy_wasm::set_log_level(LogLevel::Warn);
    proxy_wasm::set_root_context(|_| -> Box<dyn RootContext> { Box::new(Root) });
}}

struct Root;

impl Context for Root {}

impl RootContext for Root {
    fn get_type(&self) -> Option<ContextType> {
        Some(ContextType::StreamContext)
    }

    fn create_stream_context(&self, _context_id: u32) -> Option<Box<dyn StreamContext>> {
        Some(Box::new(Upper))
    }
}

struct Upper;

impl Context for Upper {}

impl StreamContext for Upper {
    fn on_downstream_data(&mut self, data_size: usize, end_of_stream: bool) -> Action {
        let Some(mut data) = self.get_downstream_data(0, data_size) else {
            return Action::Continue;
        };
        match kafka::rewrite_values(&mut data, |value| value.make_ascii_uppercase()) {
            Ok(true) => {
                self.set_downstream_data(0, data_size, &data);
                Action::Continue
            }
            Ok(false) if !end_of_stream => Action::Pause, // a request is still incomplete
            Ok(false) => Action::Continue,
            Err(reason) => {
                log::error!("not a Kafka request stream: {reason}");
                self.close_downstream();
                Action::Continue
            }
        }
    }
}
