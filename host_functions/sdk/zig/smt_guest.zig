//! smt_guest.zig - write Spark SMT WebAssembly transforms in Zig.
//!
//! The host (host_functions.WasmTransform) exchanges bytes with the guest
//! through linear memory.  This module hides the pointer packing:
//!
//!   - getters return a slice the HOST allocated through our exported
//!     `alloc`; the guest owns it and releases it with `smt.free(slice)`;
//!   - setters take a slice of guest memory; the host copies at once, so
//!     the guest may free (or reuse) it right after the call;
//!   - the entry function returns `smt.Result`: `smt.ok`, or `smt.fail("why")`.
//!
//! Import it as the module "smt" (host_functions/sdk/build.py does this):
//!   python -m ziglang build-exe -target wasm32-freestanding -O ReleaseSmall
//!     -fno-entry -rdynamic --dep smt -Mroot=guest.zig -Msmt=smt_guest.zig
const std = @import("std");

/// The JSON scanner (see smt_json.zig).
pub const json = @import("smt_json.zig");

/// The allocator behind `alloc`/`dealloc` and every getter's buffer.
pub const allocator = std.heap.wasm_allocator;

/// The entry function's return value: 0 for success, or a packed error.
pub const Result = i64;
pub const ok: Result = 0;

// Raw host imports (module "env"); a guest imports only those it calls.
const host = struct {
    extern "env" fn get_key() i64;
    extern "env" fn set_key(ptr: [*]const u8, len: u32) void;
    extern "env" fn get_value() i64;
    extern "env" fn set_value(ptr: [*]const u8, len: u32) void;
    extern "env" fn get_topic() i64;
    extern "env" fn set_topic(ptr: [*]const u8, len: u32) void;
    extern "env" fn get_header(name: [*]const u8, name_len: u32) i64;
    extern "env" fn set_header(name: [*]const u8, name_len: u32, data: [*]const u8, data_len: u32) void;
    extern "env" fn get_record() i64;
    extern "env" fn set_record(ptr: [*]const u8, len: u32) void;
};

/// Called by the host, re-entrantly from inside a getter, to place the
/// bytes it returns.  Traps when memory cannot grow.
export fn alloc(len: u32) ?[*]u8 {
    const buf = allocator.alloc(u8, len) catch @trap();
    return buf.ptr;
}

/// Releases a buffer from `alloc`; LEN must be the length it was made with.
export fn dealloc(ptr: ?[*]u8, len: u32) void {
    if (ptr) |p| allocator.free(p[0..len]);
}

/// Allocates a guest buffer (traps when memory cannot grow).
pub fn make(len: usize) []u8 {
    return allocator.alloc(u8, len) catch @trap();
}

/// Releases a slice from `make` or from a getter.
pub fn free(buf: []const u8) void {
    if (buf.len != 0) allocator.free(buf);
}

/// Turns a getter's (ptr << 32) | len into a slice (empty when null or empty).
fn unpack(packed_value: i64) []u8 {
    const bits: u64 = @bitCast(packed_value);
    const len: u32 = @truncate(bits);
    if (len == 0) return &[_]u8{};
    const ptr: [*]u8 = @ptrFromInt(@as(u32, @truncate(bits >> 32)));
    return ptr[0..len];
}

pub fn getKey() []u8 {
    return unpack(host.get_key());
}
pub fn setKey(data: []const u8) void {
    host.set_key(data.ptr, @intCast(data.len));
}
pub fn getValue() []u8 {
    return unpack(host.get_value());
}
pub fn setValue(data: []const u8) void {
    host.set_value(data.ptr, @intCast(data.len));
}
pub fn getTopic() []u8 {
    return unpack(host.get_topic());
}
pub fn setTopic(topic: []const u8) void {
    host.set_topic(topic.ptr, @intCast(topic.len));
}
/// The record as JSON: {"headers": {name: base64}, "topic", "key", "value"}.
pub fn getRecord() []u8 {
    return unpack(host.get_record());
}
pub fn setRecord(record_json: []const u8) void {
    host.set_record(record_json.ptr, @intCast(record_json.len));
}
/// The last header named NAME, or null when there is none.
pub fn getHeader(name: []const u8) ?[]u8 {
    const packed_value = host.get_header(name.ptr, @intCast(name.len));
    if (packed_value == 0) return null;
    return unpack(packed_value);
}
/// Appends a header NAME = DATA.
pub fn setHeader(name: []const u8, data: []const u8) void {
    host.set_header(name.ptr, @intCast(name.len), data.ptr, @intCast(data.len));
}

/// Fails the record with MESSAGE (must outlive the call, e.g. a literal):
/// bit 31 of the length marks an error.
pub fn fail(message: []const u8) Result {
    const len: u64 = @as(u64, @intCast(message.len)) & 0x7fff_ffff;
    const ptr: u64 = @intFromPtr(message.ptr);
    return @bitCast((ptr << 32) | len | 0x8000_0000);
}
