// Extism test plug-in (record shape), standard Go: the behaviours the host must survive, one export
// each, triggered by the record's value.
package main

import (
	"encoding/json"

	"github.com/extism/go-pdk"
)

type record struct {
	Value any `json:"value"`
}

func value() any {
	var r record
	if err := json.Unmarshal(pdk.Input(), &r); err != nil {
		return nil
	}
	return r.Value
}

func echo() int32 {
	pdk.Output([]byte("[" + string(pdk.Input()) + "]"))
	return 0
}

// trap panics when the value is "boom": the Go runtime exits the module.
//
//go:wasmexport trap
func trap() int32 {
	if value() == "boom" {
		panic("boom")
	}
	return echo()
}

var sink [][]byte

// spin never returns when the value is "spin".
//
//go:wasmexport spin
func spin() int32 {
	for value() == "spin" {
	}
	return echo()
}

// bomb allocates without bound when the value is "bomb".
//
//go:wasmexport bomb
func bomb() int32 {
	for value() == "bomb" {
		sink = append(sink, make([]byte, 1<<20))
	}
	return echo()
}

func main() {}
