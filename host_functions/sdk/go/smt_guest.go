// Package smt writes Spark SMT WebAssembly transforms in Go (GOOS=wasip1).
//
// The host (host_functions.WasmTransform) exchanges bytes with the guest
// through linear memory.  This package hides the pointer packing:
//
//   - getters return a slice the HOST allocated through our exported alloc;
//     it is an ordinary Go slice afterwards, collected by the GC;
//   - setters take a slice; the host copies it at once;
//   - the entry function returns smt.Result: smt.OK, or smt.Fail("why");
//   - smt.DropRecord() filters the record out, smt.EmitRecord() outputs a copy
//     of it as it stands (fan-out); smt.GetConfig(name) reads
//     transforms.<alias>.config.NAME.
//
// Go guests need WASI (transforms.X.wasi=true).  They are built as reactors;
// host_functions/sdk/build.py turns their _initialize export into the
// module's start function, so any host can run them without knowing that.
package smt

import "unsafe"

// ABIVersion is the host ABI version this SDK speaks.
const ABIVersion = 1

// Result is the entry function's return value: 0 for success, or a packed error.
type Result = int64

// OK is the successful Result.
const OK Result = 0

// Buffers handed to the host stay reachable here until the guest takes them
// (getters) or the host deallocs them (error messages); the GC must not move
// or collect memory the host is about to write.
var pinned = map[uint32][]byte{}

//go:wasmexport alloc
func alloc(size uint32) uint32 {
	buf := make([]byte, max(size, 1)) // a real address even for 0 bytes: the host checks it
	ptr := uint32(uintptr(unsafe.Pointer(&buf[0])))
	pinned[ptr] = buf
	return ptr
}

//go:wasmexport dealloc
func dealloc(ptr uint32, size uint32) {
	delete(pinned, ptr)
}

//go:wasmexport smt_abi_version
func abiVersion() int32 {
	return ABIVersion
}

//go:wasmimport env get_key
func hostGetKey() uint64

//go:wasmimport env set_key
func hostSetKey(ptr unsafe.Pointer, size uint32)

//go:wasmimport env get_value
func hostGetValue() uint64

//go:wasmimport env set_value
func hostSetValue(ptr unsafe.Pointer, size uint32)

//go:wasmimport env get_topic
func hostGetTopic() uint64

//go:wasmimport env set_topic
func hostSetTopic(ptr unsafe.Pointer, size uint32)

//go:wasmimport env get_header
func hostGetHeader(name unsafe.Pointer, nameSize uint32) uint64

//go:wasmimport env set_header
func hostSetHeader(name unsafe.Pointer, nameSize uint32, data unsafe.Pointer, dataSize uint32)

//go:wasmimport env get_record
func hostGetRecord() uint64

//go:wasmimport env set_record
func hostSetRecord(ptr unsafe.Pointer, size uint32)

//go:wasmimport env get_timestamp
func hostGetTimestamp() int64

//go:wasmimport env set_timestamp
func hostSetTimestamp(epochMs int64)

//go:wasmimport env get_partition
func hostGetPartition() int32

//go:wasmimport env get_offset
func hostGetOffset() int64

//go:wasmimport env get_config
func hostGetConfig(name unsafe.Pointer, nameSize uint32) uint64

//go:wasmimport env drop_record
func hostDropRecord()

//go:wasmimport env emit_record
func hostEmitRecord()

//go:wasmimport env log
func hostLog(level int32, ptr unsafe.Pointer, size uint32)

// take turns a getter's (ptr << 32) | len into a slice the guest owns (nil when null or empty).
func take(packed uint64) []byte {
	ptr, size := uint32(packed>>32), uint32(packed)
	buf, ok := pinned[ptr]
	delete(pinned, ptr)
	if !ok || size == 0 {
		return nil
	}
	return buf[:size]
}

// addr is the address of b's bytes (nil for an empty slice; the host reads 0 bytes there).
func addr(b []byte) unsafe.Pointer {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Pointer(&b[0])
}

func str(s string) unsafe.Pointer {
	return unsafe.Pointer(unsafe.StringData(s))
}

// GetKey returns the key bytes (nil when null or empty).
func GetKey() []byte { return take(hostGetKey()) }

// SetKey replaces the key.
func SetKey(b []byte) { hostSetKey(addr(b), uint32(len(b))) }

// GetValue returns the value bytes (nil when null or empty).
func GetValue() []byte { return take(hostGetValue()) }

// SetValue replaces the value.
func SetValue(b []byte) { hostSetValue(addr(b), uint32(len(b))) }

// GetTopic returns the topic name.
func GetTopic() string { return string(take(hostGetTopic())) }

// SetTopic routes the record to another topic.
func SetTopic(topic string) { hostSetTopic(str(topic), uint32(len(topic))) }

// GetRecord returns the record as JSON: {"headers": {name: base64}, "topic", "key", "value"}.
func GetRecord() []byte { return take(hostGetRecord()) }

// SetRecord replaces topic, key, value and all headers from that JSON.
func SetRecord(json []byte) { hostSetRecord(addr(json), uint32(len(json))) }

// GetHeader returns the last header named name, and whether it was there (and not empty).
func GetHeader(name string) ([]byte, bool) {
	b := take(hostGetHeader(str(name), uint32(len(name))))
	return b, b != nil
}

// SetHeader appends a header.
func SetHeader(name string, data []byte) {
	hostSetHeader(str(name), uint32(len(name)), addr(data), uint32(len(data)))
}

// GetConfig returns transforms.<alias>.config.NAME, and whether it is set.
func GetConfig(name string) (string, bool) {
	b := take(hostGetConfig(str(name), uint32(len(name))))
	return string(b), b != nil
}

// GetTimestamp returns the timestamp in epoch milliseconds, or -1 when there is none.
func GetTimestamp() int64 { return hostGetTimestamp() }

// SetTimestamp sets the timestamp; -1 removes it.
func SetTimestamp(epochMs int64) { hostSetTimestamp(epochMs) }

// GetPartition returns the partition the record was read from, or -1.
func GetPartition() int32 { return hostGetPartition() }

// GetOffset returns the offset the record was read at, or -1.
func GetOffset() int64 { return hostGetOffset() }

// DropRecord filters the record out: it is not output when the entry function returns.
func DropRecord() { hostDropRecord() }

// EmitRecord outputs a copy of the record as it stands now (fan-out).  The
// record itself is still output on return unless DropRecord is called.
func EmitRecord() { hostEmitRecord() }

// Log levels for Log.
const (
	Debug int32 = 0
	Info  int32 = 1
	Warn  int32 = 2
	Error int32 = 3
)

// Log writes message through the transform's logger.
func Log(level int32, message string) { hostLog(level, str(message), uint32(len(message))) }

// Fail fails the record with message.  The message goes into a buffer from
// alloc because the host deallocs what the entry function returns; bit 31 of
// the length marks an error.
func Fail(message string) Result {
	size := uint32(len(message)) & 0x7fffffff
	ptr := alloc(size)
	copy(pinned[ptr], message[:size])
	return Result(uint64(ptr)<<32 | uint64(size) | 0x80000000)
}
