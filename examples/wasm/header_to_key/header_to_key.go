// header_to_key: sets the record key to the last header named by the guest
// config `header` (transforms.<alias>.config.header); fails the record when
// that header is missing.
package main

import smt "smtguest"

func main() {}

//go:wasmexport header_to_key
func headerToKey() smt.Result {
	name, ok := smt.GetConfig("header")
	if !ok {
		return smt.Fail("header_to_key: the guest config 'header' is not set (transforms.<alias>.config.header)")
	}
	header, ok := smt.GetHeader(name)
	if !ok {
		return smt.Fail("header_to_key: the record has no such header, or it is empty")
	}
	smt.SetKey(header)
	return smt.OK
}
