//! Extism test plug-in (record shape): one export per behaviour the host must survive or serve.
//! The tests pick one with `transforms.X.function.name`.
use std::sync::atomic::{AtomicU64, Ordering};

use extism_pdk::*;
use serde_json::{json, Value};

/// Returns the record unchanged, logging at info level.
#[plugin_fn]
pub fn echo(Json(record): Json<Value>) -> FnResult<Json<Vec<Value>>> {
    info!("echo {}", record["topic"]);
    Ok(Json(vec![record]))
}

/// Outputs the text of the value as is: the tests hand it the output to give.
#[plugin_fn]
pub fn raw(Json(record): Json<Value>) -> FnResult<String> {
    Ok(record["value"].as_str().unwrap_or_default().to_string())
}

/// One record per space-separated word of the text value; no words: the record is dropped.
/// Words starting with `@` go to the topic named after the rest of the word.
#[plugin_fn]
pub fn split(Json(record): Json<Value>) -> FnResult<Json<Vec<Value>>> {
    let text = record["value"].as_str().unwrap_or_default().to_string();
    let words = text.split_whitespace().map(|word| match word.strip_prefix('@') {
        Some(topic) => json!({"topic": topic, "value": word}),
        None => json!({"value": word}),
    });
    Ok(Json(words.collect()))
}

static CALLS: AtomicU64 = AtomicU64::new(0);

/// The value becomes `calls=N vars=M`: calls counted in a static and in an Extism variable.
/// Traps when the value is `boom`.
#[plugin_fn]
pub fn count(Json(mut record): Json<Value>) -> FnResult<Json<Vec<Value>>> {
    if record["value"] == "boom" {
        panic!("boom");
    }
    let calls = CALLS.fetch_add(1, Ordering::SeqCst) + 1;
    let vars: u64 = var::get::<String>("count")?.and_then(|text| text.parse().ok()).unwrap_or(0) + 1;
    var::set("count", vars.to_string())?;
    record["value"] = json!(format!("calls={calls} vars={vars}"));
    Ok(Json(vec![record]))
}

/// Fails through the Extism error: the value names the reason.
#[plugin_fn]
pub fn fail(Json(record): Json<Value>) -> FnResult<Json<Vec<Value>>> {
    Err(WithReturnCode::new(Error::msg(format!("refused {}", record["value"])), 1))
}

/// Traps (a Rust panic aborts with `unreachable`) when the value is `boom`.
#[plugin_fn]
pub fn trap(Json(record): Json<Value>) -> FnResult<Json<Vec<Value>>> {
    if record["value"] == "boom" {
        panic!("boom");
    }
    Ok(Json(vec![record]))
}

/// Never returns when the value is `spin`.
#[plugin_fn]
pub fn spin(Json(record): Json<Value>) -> FnResult<Json<Vec<Value>>> {
    let mut turns: u64 = 0;
    while record["value"] == "spin" {
        turns = std::hint::black_box(turns.wrapping_add(1));
    }
    Ok(Json(vec![record]))
}

/// Allocates without bound when the value is `bomb`.
#[plugin_fn]
pub fn bomb(Json(record): Json<Value>) -> FnResult<Json<Vec<Value>>> {
    let mut hoard: Vec<Vec<u8>> = Vec::new();
    while record["value"] == "bomb" {
        hoard.push(std::hint::black_box(vec![7u8; 1 << 20]));
    }
    Ok(Json(vec![record]))
}

/// A million records for one input when the value is `flood`.
#[plugin_fn]
pub fn flood(Json(record): Json<Value>) -> FnResult<String> {
    if record["value"] != "flood" {
        return Ok(format!("[{record}]"));
    }
    let mut out = String::with_capacity(3_000_002);
    out.push('[');
    for i in 0..1_000_000 {
        if i > 0 {
            out.push(',');
        }
        out.push_str("{}");
    }
    out.push(']');
    Ok(out)
}

/// Makes an HTTP request, which the host must refuse.
#[plugin_fn]
pub fn fetch(Json(record): Json<Value>) -> FnResult<Json<Vec<Value>>> {
    let request = HttpRequest::new("http://127.0.0.1:9/");
    http::request::<()>(&request, None)?;
    Ok(Json(vec![record]))
}
