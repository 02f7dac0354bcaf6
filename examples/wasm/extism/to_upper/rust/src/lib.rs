//! Extism plug-in (record shape): the record comes in as JSON, a JSON array of records goes out.
//! A text value is upper-cased; every other field, and a value that is not text, is returned as it came.
use extism_pdk::*;
use serde_json::Value;

#[plugin_fn]
pub fn transform(Json(mut record): Json<Value>) -> FnResult<Json<Vec<Value>>> {
    if let Some(Value::String(text)) = record.get_mut("value") {
        *text = text.to_uppercase();
    }
    Ok(Json(vec![record]))
}
