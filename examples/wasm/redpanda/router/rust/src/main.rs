//! Sends each record to the output topic named by its last `route` header, when that is one of the
//! transform's output topics (REDPANDA_OUTPUT_TOPIC_0..N); to the first output topic otherwise.
use redpanda_transform_sdk::*;

fn main() {
    let outputs: Vec<String> =
        (0..).map_while(|i| std::env::var(format!("REDPANDA_OUTPUT_TOPIC_{i}")).ok()).collect();
    on_record_written(move |event, writer| route(&outputs, event, writer));
}

fn route(outputs: &[String], event: WriteEvent, writer: &mut RecordWriter) -> Result<(), WriteError> {
    let wanted = event.record.headers().iter().rev().find(|header| header.key() == b"route")
        .and_then(|header| header.value())
        .and_then(|value| std::str::from_utf8(value).ok())
        .filter(|topic| outputs.iter().any(|output| output == topic));
    match wanted {
        Some(topic) => writer.write_with_options(&event.record, WriteOptions::to_topic(topic)),
        None => writer.write(&event.record),
    }
}
