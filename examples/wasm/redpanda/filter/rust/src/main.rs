//! Keeps the records whose value contains the text in the MATCH variable (`transforms.X.config.MATCH`,
//! default "error"); the others are dropped (nothing is written for them).
use redpanda_transform_sdk::*;

fn main() {
    let needle = std::env::var("MATCH").unwrap_or_else(|_| "error".to_string()).into_bytes();
    on_record_written(move |event, writer| keep_matching(&needle, event, writer));
}

fn keep_matching(needle: &[u8], event: WriteEvent, writer: &mut RecordWriter) -> Result<(), WriteError> {
    let value = event.record.value().unwrap_or_default();
    if needle.is_empty() || value.windows(needle.len()).any(|window| window == needle) {
        writer.write(&event.record)?;
    }
    Ok(())
}
