// Uses every helper of the Go SDK once, so a test can hold each to the host ABI.
package main

import (
	"strconv"

	smt "smtguest"
)

func main() {}

// topic -> topic + ".out"; timestamp + 1000; headers: partition, offset, greeting (guest
// config), key-was (the old key); key <- the value of header "next-key"; value kept.
//
//go:wasmexport tour
func tour() smt.Result {
	smt.SetTopic(smt.GetTopic() + ".out")

	if timestamp := smt.GetTimestamp(); timestamp >= 0 {
		smt.SetTimestamp(timestamp + 1000)
	}

	smt.SetHeader("partition", []byte(strconv.Itoa(int(smt.GetPartition()))))
	smt.SetHeader("offset", []byte(strconv.FormatInt(smt.GetOffset(), 10)))

	if greeting, ok := smt.GetConfig("greeting"); ok {
		smt.SetHeader("greeting", []byte(greeting))
	}

	smt.SetHeader("key-was", smt.GetKey())

	if next, ok := smt.GetHeader("next-key"); ok {
		smt.SetKey(next)
	}

	smt.SetValue(smt.GetValue())

	smt.Log(smt.Info, "tour: done")
	return smt.OK
}

// The record as JSON, unchanged, back to the host.
//
//go:wasmexport record_roundtrip
func recordRoundtrip() smt.Result {
	smt.SetRecord(smt.GetRecord())
	return smt.OK
}

// The record fails when the value says so.
//
//go:wasmexport fail_on_request
func failOnRequest() smt.Result {
	if string(smt.GetValue()) == "fail" {
		return smt.Fail("sdk_tour: failed as asked")
	}
	return smt.OK
}
