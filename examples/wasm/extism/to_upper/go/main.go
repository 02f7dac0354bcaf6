// Extism plug-in (record shape), standard Go: the record comes in as JSON, a JSON array of
// records goes out. A text value is upper-cased; everything else is returned as it came.
package main

import (
	"encoding/json"
	"strings"

	"github.com/extism/go-pdk"
)

//go:wasmexport transform
func transform() int32 {
	var record map[string]any
	if err := json.Unmarshal(pdk.Input(), &record); err != nil {
		pdk.SetError(err)
		return 1
	}
	if text, ok := record["value"].(string); ok {
		record["value"] = strings.ToUpper(text)
	}
	if err := pdk.OutputJSON([]map[string]any{record}); err != nil {
		pdk.SetError(err)
		return 1
	}
	return 0
}

func main() {}
