// Keeps the records whose value contains the text in the MATCH variable (transforms.X.config.MATCH,
// default "error"); the others are dropped (nothing is written for them).
package main

import (
	"bytes"
	"os"

	"github.com/redpanda-data/redpanda/src/transform-sdk/go/transform"
)

func main() {
	needle, ok := os.LookupEnv("MATCH")
	if !ok {
		needle = "error"
	}
	transform.OnRecordWritten(func(event transform.WriteEvent, writer transform.RecordWriter) error {
		record := event.Record()
		if bytes.Contains(record.Value, []byte(needle)) {
			return writer.Write(record)
		}
		return nil
	})
}
