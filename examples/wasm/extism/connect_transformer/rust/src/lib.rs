//! Extism plug-in (host-function shape), Rust: the exports of the Kafka Connect Extism
//! transformer's test plug-in.  The record is read and changed through host functions imported
//! from `extism:host/user`, each passing one kernel memory handle; the exports take no input.
#![allow(non_snake_case)]

use base64::{engine::general_purpose::STANDARD, Engine};
use extism_pdk::*;
use serde::{Deserialize, Serialize};

#[host_fn]
extern "ExtismHost" {
    fn getKey() -> Vec<u8>;
    fn setKey(key: Vec<u8>);
    fn getValue() -> Vec<u8>;
    fn setValue(value: Vec<u8>);
    fn getHeader(name: String) -> Vec<u8>;
    fn setHeader(header: Json<Header>);
    fn getRecord() -> Json<Record>;
    fn setRecord(record: Json<Record>);
}

/// Bytes are base64 strings in the transformer's JSON documents.
#[derive(Deserialize, Serialize)]
pub struct Header {
    key: String,
    value: Option<String>,
}

#[derive(Deserialize, Serialize)]
pub struct Record {
    #[serde(default)]
    headers: Vec<Header>,
    #[serde(skip_serializing_if = "Option::is_none")]
    key: Option<String>,
    topic: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    value: Option<String>,
}

#[plugin_fn]
pub fn toUpper() -> FnResult<()> {
    let key = unsafe { getKey()? };
    let value = unsafe { getValue()? };
    unsafe {
        setKey(key.to_ascii_uppercase())?;
        setValue(value.to_ascii_uppercase())?;
    }
    Ok(())
}

#[plugin_fn]
pub fn valueToKey() -> FnResult<()> {
    unsafe { setKey(getValue()?)? };
    Ok(())
}

#[plugin_fn]
pub fn headerToKey() -> FnResult<()> {
    unsafe { setKey(getHeader("the-key".to_string())?)? };
    Ok(())
}

#[plugin_fn]
pub fn copyHeader() -> FnResult<()> {
    let value = unsafe { getHeader("the-header-in".to_string())? };
    let header = Header { key: "the-header-out".to_string(), value: Some(STANDARD.encode(value)) };
    unsafe { setHeader(Json(header))? };
    Ok(())
}

#[plugin_fn]
pub fn transform() -> FnResult<()> {
    let Json(mut record) = unsafe { getRecord()? };
    let value = match &record.value {
        Some(text) => STANDARD.decode(text)?,
        None => Vec::new(),
    };
    record.key = record.value.take();
    record.value = Some(STANDARD.encode(value.to_ascii_uppercase()));
    unsafe { setRecord(Json(record))? };
    Ok(())
}
