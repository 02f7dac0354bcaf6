// A test guest built with Redpanda's Go SDK: what it does is chosen by each record's value.
// trap panics, loop never returns, bomb allocates until memory runs out, exit exits with 3,
// flood writes a million records, sleep sleeps an hour (the host's clock never blocks), clock
// writes the clock's epoch millis, env:NAME writes that variable, count writes how many records
// this instance has seen; anything else is written back unchanged.
package main

import (
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/redpanda-data/redpanda/src/transform-sdk/go/transform"
)

var seen int
var hoard [][]byte

func main() {
	transform.OnRecordWritten(behave)
}

func behave(event transform.WriteEvent, writer transform.RecordWriter) error {
	seen++
	record := event.Record()
	command, argument, _ := strings.Cut(string(record.Value), ":")
	switch command {
	case "trap":
		panic("trap requested")
	case "loop":
		for {
			seen++
		}
	case "bomb":
		for {
			hoard = append(hoard, make([]byte, 1<<20))
		}
	case "exit":
		os.Exit(3)
	case "flood":
		for i := 0; i < 1_000_000; i++ {
			if err := writer.Write(record); err != nil {
				return err
			}
		}
		return nil
	case "sleep":
		time.Sleep(time.Hour)
	case "clock":
		record.Value = []byte(strconv.FormatInt(time.Now().UnixMilli(), 10))
	case "env":
		value, ok := os.LookupEnv(argument)
		if !ok {
			value = "<unset>"
		}
		record.Value = []byte(value)
	case "count":
		record.Value = []byte(strconv.Itoa(seen))
	}
	return writer.Write(record)
}
