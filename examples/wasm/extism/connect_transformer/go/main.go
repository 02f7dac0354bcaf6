// Extism plug-in (host-function shape), standard Go: the exports of the Kafka Connect Extism
// transformer's test plug-in.  The record is read and changed through host functions imported
// from extism:host/user, each passing one kernel memory handle; the export takes no input.
package main

import (
	"encoding/json"
	"strings"

	"github.com/extism/go-pdk"
)

//go:wasmimport extism:host/user getKey
func getKey() uint64

//go:wasmimport extism:host/user setKey
func setKey(uint64)

//go:wasmimport extism:host/user getValue
func getValue() uint64

//go:wasmimport extism:host/user setValue
func setValue(uint64)

//go:wasmimport extism:host/user getHeader
func getHeader(uint64) uint64

//go:wasmimport extism:host/user setHeader
func setHeader(uint64)

//go:wasmimport extism:host/user getRecord
func getRecord() uint64

//go:wasmimport extism:host/user setRecord
func setRecord(uint64)

// Header and Record are the transformer's JSON documents: bytes are base64 ([]byte in Go).
type Header struct {
	Key   string `json:"key"`
	Value []byte `json:"value"`
}

type Record struct {
	Headers []Header `json:"headers"`
	Key     []byte   `json:"key"`
	Topic   string   `json:"topic"`
	Value   []byte   `json:"value"`
}

func read(handle uint64) []byte {
	memory := pdk.FindMemory(handle)
	return memory.ReadBytes()
}

func give(data []byte) uint64 {
	memory := pdk.AllocateBytes(data)
	return memory.Offset()
}

// toUpper upper-cases key and value.
//
//go:wasmexport toUpper
func toUpper() int32 {
	key, value := read(getKey()), read(getValue())
	setKey(give([]byte(strings.ToUpper(string(key)))))
	setValue(give([]byte(strings.ToUpper(string(value)))))
	return 0
}

// valueToKey copies the value to the key.
//
//go:wasmexport valueToKey
func valueToKey() int32 {
	setKey(give(read(getValue())))
	return 0
}

// headerToKey copies the header `the-key` to the key.
//
//go:wasmexport headerToKey
func headerToKey() int32 {
	setKey(give(read(getHeader(give([]byte("the-key"))))))
	return 0
}

// copyHeader copies the header `the-header-in` to a new header `the-header-out`.
//
//go:wasmexport copyHeader
func copyHeader() int32 {
	value := read(getHeader(give([]byte("the-header-in"))))
	document, err := json.Marshal(Header{Key: "the-header-out", Value: value})
	if err != nil {
		pdk.SetError(err)
		return 1
	}
	setHeader(give(document))
	return 0
}

// transform takes the whole record: the key becomes the value, the value is upper-cased.
//
//go:wasmexport transform
func transform() int32 {
	var record Record
	if err := json.Unmarshal(read(getRecord()), &record); err != nil {
		pdk.SetError(err)
		return 1
	}
	record.Key = record.Value
	record.Value = []byte(strings.ToUpper(string(record.Value)))
	document, err := json.Marshal(record)
	if err != nil {
		pdk.SetError(err)
		return 1
	}
	setRecord(give(document))
	return 0
}

func main() {}
