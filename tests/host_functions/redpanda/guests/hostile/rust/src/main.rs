//! What each record's value asks for:
//! `trap` panics, `loop` never returns, `bomb` allocates until memory runs out, `exit` exits with 3,
//! `flood` writes a million records, `fanout:N` writes N copies, `drop` writes nothing,
//! `route:T` writes to topic T, `env:NAME` writes that variable, `clock` writes the clock's epoch
//! millis, `count` writes how many records this instance has seen, `header` adds a header,
//! `bad-header` adds a header whose name is not UTF-8, `null` writes a null key and value;
//! anything else is written back unchanged.
use redpanda_transform_sdk::*;
use std::error::Error;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

static SEEN: AtomicU64 = AtomicU64::new(0);

fn main() {
    on_record_written(behave);
}

fn write_value(event: &WriteEvent, writer: &mut RecordWriter, value: &[u8]) -> Result<(), Box<dyn Error>> {
    let record = &event.record;
    writer.write(BorrowedRecord::new_with_headers(record.key(), Some(value), record.headers().to_vec()))?;
    Ok(())
}

fn behave(event: WriteEvent, writer: &mut RecordWriter) -> Result<(), Box<dyn Error>> {
    let seen = SEEN.fetch_add(1, Ordering::Relaxed) + 1;
    let value = String::from_utf8_lossy(event.record.value().unwrap_or_default()).into_owned();
    let (command, argument) = value.split_once(':').unwrap_or((value.as_str(), ""));
    match command {
        "trap" => panic!("trap requested"),
        "loop" => loop {
            std::hint::black_box(seen);
        },
        "bomb" => {
            let mut hoard: Vec<Vec<u8>> = Vec::new();
            loop {
                hoard.push(vec![1u8; 1 << 20]);
                std::hint::black_box(&hoard);
            }
        }
        "exit" => std::process::exit(3),
        "flood" => {
            for _ in 0..1_000_000 {
                writer.write(&event.record)?;
            }
        }
        "fanout" => {
            for i in 0..argument.parse::<u32>()? {
                write_value(&event, writer, format!("{value}#{i}").as_bytes())?;
            }
        }
        "drop" => {}
        "route" => writer.write_with_options(&event.record, WriteOptions::to_topic(argument))?,
        "env" => write_value(&event, writer, std::env::var(argument).unwrap_or("<unset>".into()).as_bytes())?,
        "clock" => {
            let millis = SystemTime::now().duration_since(UNIX_EPOCH)?.as_millis();
            write_value(&event, writer, millis.to_string().as_bytes())?
        }
        "count" => write_value(&event, writer, seen.to_string().as_bytes())?,
        "header" | "bad-header" => {
            let name: &[u8] = if command == "header" { b"seen" } else { b"\xff" };
            let mut headers = event.record.headers().to_vec();
            headers.push(BorrowedHeader::new(name, Some(b"yes")));
            writer.write(BorrowedRecord::new_with_headers(event.record.key(), event.record.value(), headers))?
        }
        "null" => writer.write(BorrowedRecord::new(None, None))?,
        _ => writer.write(&event.record)?,
    }
    Ok(())
}
