//! The guest side of the Kafka Connect Wasm transformer's ABI, with the memory habits of its
//! published Rust SDK, on purpose:
//!
//! * `alloc` hands out a `Vec`'s buffer and forgets it; getters take that buffer back as a `Vec`
//!   (freed when the guest drops it); `dealloc` frees a buffer of a given capacity.
//! * `get_connect_record` only borrows the JSON document the host allocated and never frees it:
//!   the published SDK leaks one document (~110 bytes for a small record) per call, and the host
//!   must live with such guests (a fresh instance when the memory runs out).

use std::collections::HashMap;
use std::mem;
use std::slice;

use serde::{Deserialize, Serialize};

#[link(wasm_import_module = "env")]
extern "C" {
    fn get_key() -> u64;
    fn set_key(ptr: *const u8, len: i32);
    fn get_value() -> u64;
    fn set_value(ptr: *const u8, len: i32);
    fn get_topic() -> u64;
    fn set_topic(ptr: *const u8, len: i32);
    fn get_header(name_ptr: *const u8, name_len: i32) -> u64;
    fn set_header(name_ptr: *const u8, name_len: i32, data_ptr: *const u8, data_len: i32);
    fn get_record() -> u64;
    fn set_record(ptr: *const u8, len: i32);
}

/// The record as the transformer's `get_record`/`set_record` JSON: bytes in standard base64.
#[derive(Serialize, Deserialize)]
pub struct Message {
    pub headers: HashMap<String, serde_json::Value>,
    pub topic: String,
    #[serde(default, with = "base64_bytes")]
    pub key: Vec<u8>,
    #[serde(with = "base64_bytes")]
    pub value: Vec<u8>,
}

mod base64_bytes {
    use base64::engine::general_purpose::STANDARD;
    use base64::Engine;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(bytes: &[u8], serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&STANDARD.encode(bytes))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<u8>, D::Error> {
        let text = String::deserialize(deserializer)?;
        STANDARD.decode(text).map_err(serde::de::Error::custom)
    }
}

#[no_mangle]
pub extern "C" fn alloc(size: u32) -> *mut u8 {
    let mut buffer: Vec<u8> = Vec::with_capacity(size as usize);
    let ptr = buffer.as_mut_ptr();
    mem::forget(buffer);
    ptr
}

#[no_mangle]
pub unsafe extern "C" fn dealloc(ptr: *mut u8, len: i32) {
    drop(Vec::from_raw_parts(ptr, 0, len as usize));
}

fn split(packed: u64) -> (*mut u8, usize) {
    ((packed >> 32) as usize as *mut u8, (packed as u32) as usize)
}

/// A getter's buffer, owned from now on (a null result reads as empty).
fn owned(packed: u64) -> Vec<u8> {
    let (ptr, len) = split(packed);
    if ptr.is_null() {
        return Vec::new();
    }
    unsafe { Vec::from_raw_parts(ptr, len, len) }
}

pub fn get_connect_record_key() -> Vec<u8> {
    owned(unsafe { get_key() })
}

pub fn set_connect_record_key(key: Vec<u8>) {
    unsafe { set_key(key.as_ptr(), key.len() as i32) }
}

pub fn get_connect_record_value() -> Vec<u8> {
    owned(unsafe { get_value() })
}

pub fn set_connect_record_value(value: Vec<u8>) {
    unsafe { set_value(value.as_ptr(), value.len() as i32) }
}

pub fn get_connect_record_topic() -> Vec<u8> {
    owned(unsafe { get_topic() })
}

pub fn set_connect_record_topic(topic: Vec<u8>) {
    unsafe { set_topic(topic.as_ptr(), topic.len() as i32) }
}

pub fn get_connect_record_header(name: String) -> Vec<u8> {
    let name = name.into_bytes();
    owned(unsafe { get_header(name.as_ptr(), name.len() as i32) })
}

pub fn set_connect_record_header(name: String, data: Vec<u8>) {
    let name = name.into_bytes();
    unsafe { set_header(name.as_ptr(), name.len() as i32, data.as_ptr(), data.len() as i32) }
}

/// The whole record; the host's document is borrowed and never freed (see the module doc).
pub fn get_connect_record() -> Message {
    let (ptr, len) = split(unsafe { get_record() });
    let document = unsafe { slice::from_raw_parts(ptr, len) };
    serde_json::from_slice(document).unwrap()
}

pub fn set_connect_record(message: Message) {
    let document = serde_json::to_vec(&message).unwrap();
    unsafe { set_record(document.as_ptr(), document.len() as i32) }
}
