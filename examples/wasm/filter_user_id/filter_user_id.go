// filter_user_id: keeps only records whose JSON object value has a non-null
// top-level "user_id"; drops the rest (including null values).  A value that
// is not a JSON object fails the record.
package main

import (
	"encoding/json"

	smt "smtguest"
)

func main() {}

//go:wasmexport filter_user_id
func filterUserID() smt.Result {
	value := smt.GetValue()
	if value == nil {
		smt.DropRecord()
		return smt.OK
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(value, &members); err != nil || members == nil {
		return smt.Fail("filter_user_id: the record value is not a JSON object")
	}
	userID, found := members["user_id"]
	if !found || string(userID) == "null" {
		smt.DropRecord()
	}
	return smt.OK
}
