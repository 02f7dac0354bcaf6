//! Upper-cases the ASCII letters of every record's value; key and headers pass unchanged.
use redpanda_transform_sdk::*;

fn main() {
    on_record_written(to_upper);
}

fn to_upper(event: WriteEvent, writer: &mut RecordWriter) -> Result<(), WriteError> {
    let record = &event.record;
    let value = record.value().map(|value| value.to_ascii_uppercase());
    writer.write(BorrowedRecord::new_with_headers(record.key(), value.as_deref(), record.headers().to_vec()))
}
