// to_upper: upper-cases the ASCII letters of the record value (other bytes kept).
package main

import smt "smtguest"

func main() {}

//go:wasmexport to_upper
func toUpper() smt.Result {
	value := smt.GetValue()
	if value == nil { // null or empty value: nothing to change
		return smt.OK
	}
	for i, c := range value {
		if c >= 'a' && c <= 'z' {
			value[i] = c - ('a' - 'A')
		}
	}
	smt.SetValue(value)
	return smt.OK
}
