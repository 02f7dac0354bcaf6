// Sends each record to the output topic named by its last `route` header, when that is one of the
// transform's output topics (REDPANDA_OUTPUT_TOPIC_0..N); to the first output topic otherwise.
package main

import (
	"fmt"
	"os"

	"github.com/redpanda-data/redpanda/src/transform-sdk/go/transform"
)

func main() {
	outputs := map[string]bool{}
	for i := 0; ; i++ {
		topic, ok := os.LookupEnv(fmt.Sprintf("REDPANDA_OUTPUT_TOPIC_%d", i))
		if !ok {
			break
		}
		outputs[topic] = true
	}
	transform.OnRecordWritten(func(event transform.WriteEvent, writer transform.RecordWriter) error {
		record := event.Record()
		wanted := ""
		for _, header := range record.Headers {
			if string(header.Key) == "route" && header.Value != nil {
				wanted = string(header.Value)
			}
		}
		if outputs[wanted] {
			return writer.Write(record, transform.ToTopic(wanted))
		}
		return writer.Write(record)
	})
}
