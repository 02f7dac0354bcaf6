//! Extism plug-in (record shape), after the XTP Kafka demo's `max` transform: each order's price
//! becomes the highest price seen so far, its volume 0, and the record is routed to the topic named
//! by the plug-in config `topic-name` (default `max-output`).  The running maximum lives in an
//! Extism variable, so it persists across calls within one plug-in instance.
use extism_pdk::*;
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Deserialize, Serialize)]
pub struct Order {
    date: String,
    price: f64,
    volume: i64,
}

#[derive(Deserialize, Serialize)]
pub struct Record {
    topic: String,
    key: Value,
    value: Order,
    headers: Vec<Value>,
}

#[plugin_fn]
pub fn transform(Json(mut record): Json<Record>) -> FnResult<Json<Vec<Record>>> {
    let seen: f64 = var::get::<String>("max")?.and_then(|text| text.parse().ok()).unwrap_or(f64::MIN);
    let max = seen.max(record.value.price);
    var::set("max", max.to_string())?;
    record.value.price = max;
    record.value.volume = 0;
    record.topic = config::get("topic-name")?.unwrap_or_else(|| "max-output".to_string());
    Ok(Json(vec![record]))
}
