// The smallest Go guest: exports the SDK's alloc/dealloc and an entry that succeeds.
package main

import smt "smtguest"

func main() {}

//go:wasmexport noop
func noop() smt.Result { return smt.OK }

// Lets tests check the packing of smt.Fail() without a host.
//
//go:wasmexport fail
func fail() smt.Result { return smt.Fail("noop: failed on purpose") }
