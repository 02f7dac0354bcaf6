//! smt_guest.zig - write Spark SMT WebAssembly transforms in Zig.
//!
//! The host (host_functions.WasmTransform) exchanges bytes with the guest
//! through linear memory.  This module hides the pointer packing:
//!
//!   - getters return a slice the HOST allocated through our exported
//!     `alloc`; the guest owns it and releases it with `smt.free(slice)`;
//!   - setters take a slice of guest memory; the host copies at once, so
//!     the guest may free (or reuse) it right after the call;
//!   - the entry function returns `smt.Result`: `smt.ok`, or `smt.fail("why")`;
//!   - `smt.dropRecord()` filters the record out, `smt.emitRecord()` outputs a
//!     copy of it as it stands (fan-out); `smt.getConfig(name)` reads
//!     transforms.<alias>.config.NAME.
//!
//! Import it as the module "smt" (host_functions/sdk/build.py does this):
//!   python -m ziglang build-exe -target wasm32-freestanding -O ReleaseSafe
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
    // Extensions beyond the Kafka Connect Wasm transformer's ABI (host_functions/ABI.md).
    extern "env" fn get_timestamp() i64;
    extern "env" fn set_timestamp(epoch_ms: i64) void;
    extern "env" fn get_partition() i32;
    extern "env" fn get_offset() i64;
    extern "env" fn get_config(name: [*]const u8, name_len: u32) i64;
    extern "env" fn drop_record() void;
    extern "env" fn emit_record() void;
    extern "env" fn log(level: i32, ptr: [*]const u8, len: u32) void;
};

/// The host ABI version this SDK speaks.
pub const abi_version: i32 = 1;

/// Tells the host which ABI version this guest was built against.
export fn smt_abi_version() i32 {
    return abi_version;
}

/// Called by the host, re-entrantly from inside a getter, to place the
/// bytes it returns.  Always a real address, even for 0 bytes (the host
/// checks it lies inside memory).  Traps when memory cannot grow.
export fn alloc(len: u32) [*]u8 {
    return hostBuffer(len).ptr;
}

/// Releases a buffer from `alloc`.  The host also deallocs the message of
/// an error result, whose length still carries the error bit.
export fn dealloc(ptr: ?[*]u8, len: u32) void {
    if (ptr) |p| allocator.free(p[0..hostBufferSize(len & 0x7fff_ffff)]);
}

fn hostBufferSize(len: u32) usize {
    return @max(len, 1);
}

fn hostBuffer(len: u32) []u8 {
    return allocator.alloc(u8, hostBufferSize(len)) catch @trap();
}

/// Allocates a guest buffer (traps when memory cannot grow).
pub fn make(len: usize) []u8 {
    return allocator.alloc(u8, len) catch @trap();
}

/// Releases a slice from `make` or from a getter.
pub fn free(buf: []const u8) void {
    if (buf.len != 0) allocator.free(buf);
}

/// Turns a getter's (ptr << 32) | len into a slice.  An empty buffer is
/// released at once, so callers only ever see an empty slice for "nothing".
fn unpack(packed_value: i64) []u8 {
    const bits: u64 = @bitCast(packed_value);
    const len: u32 = @truncate(bits);
    const addr: u32 = @truncate(bits >> 32);
    if (len == 0) {
        if (addr != 0) dealloc(@ptrFromInt(addr), 0);
        return &[_]u8{};
    }
    const ptr: [*]u8 = @ptrFromInt(addr);
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

/// The value of `transforms.<alias>.config.NAME`, or null when it is not set.
pub fn getConfig(name: []const u8) ?[]u8 {
    const packed_value = host.get_config(name.ptr, @intCast(name.len));
    if (packed_value == 0) return null;
    return unpack(packed_value);
}

/// Timestamp in epoch milliseconds, or -1 when the record has none.
pub fn getTimestamp() i64 {
    return host.get_timestamp();
}
/// Sets the timestamp; -1 removes it.
pub fn setTimestamp(epoch_ms: i64) void {
    host.set_timestamp(epoch_ms);
}
/// The partition the record was read from; -1 when unknown.
pub fn getPartition() i32 {
    return host.get_partition();
}
/// The offset the record was read at; -1 when unknown.
pub fn getOffset() i64 {
    return host.get_offset();
}

/// Filtering: the record is not output when the entry function returns.
pub fn dropRecord() void {
    host.drop_record();
}
/// Fan-out: outputs a copy of the record as it stands now.  The record
/// itself is still output on return unless `dropRecord()` is called.
pub fn emitRecord() void {
    host.emit_record();
}

pub const LogLevel = enum(i32) { debug = 0, info = 1, warn = 2, err = 3 };
/// Logs `message` (UTF-8) through the transform's logger.
pub fn log(level: LogLevel, message: []const u8) void {
    host.log(@intFromEnum(level), message.ptr, @intCast(message.len));
}

/// Fails the record with `message`.  The message is copied to a buffer from
/// `alloc` because the host deallocs what the entry function returns; bit 31
/// of the length marks an error.
pub fn fail(message: []const u8) Result {
    const len: u32 = @as(u32, @intCast(message.len)) & 0x7fff_ffff;
    const copy = hostBuffer(len);
    @memcpy(copy[0..len], message[0..len]);
    const ptr: u64 = @intFromPtr(copy.ptr);
    return @bitCast((ptr << 32) | len | 0x8000_0000);
}
