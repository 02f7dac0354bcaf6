// value_to_key: sets the record key to a copy of the record value.
package main

import smt "smtguest"

func main() {}

//go:wasmexport value_to_key
func valueToKey() smt.Result {
	value := smt.GetValue()
	if value == nil {
		return smt.Fail("value_to_key: the record has no value to use as its key")
	}
	smt.SetKey(value)
	return smt.OK
}
