//! Transforms for the Kafka Connect Wasm transformer, one exported function each, as its
//! published test guest defines them (plus one over the topic, so that the module imports all
//! ten host functions).  Failures panic: the module traps and the host fails the record.

mod sdk;

use sdk::*;

/// The value, upper-cased (Unicode rules, as Rust's `to_uppercase`).
#[no_mangle]
pub extern "C" fn to_upper() {
    let value = get_connect_record_value();
    let upper = String::from_utf8(value).unwrap().to_uppercase().as_bytes().to_vec();
    set_connect_record_value(upper);
}

/// The key becomes a copy of the value.
#[no_mangle]
pub extern "C" fn value_to_key() {
    set_connect_record_key(get_connect_record_value());
}

/// The key becomes the value of header `the-key`.
#[no_mangle]
pub extern "C" fn header_to_key() {
    set_connect_record_key(get_connect_record_header("the-key".to_string()));
}

/// Header `the-header-out` is added with the value of `the-header-in`.
#[no_mangle]
pub extern "C" fn copy_header() {
    let data = get_connect_record_header("the-header-in".to_string());
    set_connect_record_header("the-header-out".to_string(), data);
}

/// Through the record JSON: the key becomes the value, the value is upper-cased.
#[no_mangle]
pub extern "C" fn transform() {
    let mut message = get_connect_record();
    message.key = message.value.clone();
    message.value = String::from_utf8(message.value).unwrap().to_uppercase().into_bytes();
    set_connect_record(message);
}

/// The record is routed to `<key>-<topic>`.
#[no_mangle]
pub extern "C" fn key_to_topic() {
    let mut topic = get_connect_record_key();
    topic.push(b'-');
    topic.extend(get_connect_record_topic());
    set_connect_record_topic(topic);
}
