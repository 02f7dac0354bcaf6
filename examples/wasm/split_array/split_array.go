// split_array: fans a JSON array value out into one record per element, in
// order; each output keeps the key, topic and headers and carries the
// element's JSON text as its value.  An empty array drops the record, a null
// value passes unchanged, and any other value fails the record.
package main

import (
	"encoding/json"

	smt "smtguest"
)

func main() {}

//go:wasmexport split_array
func splitArray() smt.Result {
	value := smt.GetValue()
	if value == nil {
		return smt.OK
	}
	var elements []json.RawMessage // each element's exact text
	if err := json.Unmarshal(value, &elements); err != nil || elements == nil {
		return smt.Fail("split_array: the record value is not a JSON array")
	}
	for _, element := range elements {
		smt.SetValue(element)
		smt.EmitRecord()
	}
	smt.DropRecord() // every element was emitted; the array itself is not output
	return smt.OK
}
