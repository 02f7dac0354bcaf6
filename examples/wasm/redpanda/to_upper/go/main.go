// Upper-cases the ASCII letters of every record's value; key and headers pass unchanged.
package main

import "github.com/redpanda-data/redpanda/src/transform-sdk/go/transform"

func main() {
	transform.OnRecordWritten(toUpper)
}

func toUpper(event transform.WriteEvent, writer transform.RecordWriter) error {
	record := event.Record()
	if record.Value != nil {
		upper := make([]byte, len(record.Value))
		for i, c := range record.Value {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			upper[i] = c
		}
		record.Value = upper
	}
	return writer.Write(record)
}
