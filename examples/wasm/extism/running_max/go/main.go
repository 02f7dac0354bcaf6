// Extism plug-in (record shape), standard Go, after the XTP Kafka demo's `max` transform: each
// order's price becomes the highest price seen so far, its volume 0, and the record is routed to
// the topic named by the plug-in config `topic-name` (default `max-output`).  The running maximum
// is a Go global, so it persists across calls within one plug-in instance.
package main

import (
	"encoding/json"
	"math"
	"time"

	"github.com/extism/go-pdk"
)

type Header struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

type Order struct {
	Date   time.Time `json:"date"`
	Price  float64   `json:"price"`
	Volume int64     `json:"volume"`
}

type Record struct {
	Headers []Header `json:"headers"`
	Key     string   `json:"key"`
	Topic   string   `json:"topic"`
	Value   Order    `json:"value"`
}

var (
	max   = math.Inf(-1)
	topic = "max-output"
)

func init() {
	if name, ok := pdk.GetConfig("topic-name"); ok {
		topic = name
	}
}

//go:wasmexport transform
func transform() int32 {
	var record Record
	if err := json.Unmarshal(pdk.Input(), &record); err != nil {
		pdk.SetError(err)
		return 1
	}
	record.Topic = topic
	if record.Value.Price > max {
		max = record.Value.Price
	}
	record.Value.Price = max
	record.Value.Volume = 0
	if err := pdk.OutputJSON([]Record{record}); err != nil {
		pdk.SetError(err)
		return 1
	}
	return 0
}

func main() {}
