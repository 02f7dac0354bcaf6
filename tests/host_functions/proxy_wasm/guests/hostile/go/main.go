// A proxy-wasm network filter (standard-Go SDK) that misbehaves on purpose, chosen by record
// values: a request containing "boom" panics, "spin" loops forever, "hog" allocates without
// end, "grow" appends to the downstream data without end, "hold" returns Pause for good and
// "close" closes the connection.  Other requests pass unchanged.
package main

import (
	"bytes"

	"github.com/proxy-wasm/proxy-wasm-go-sdk/proxywasm"
	"github.com/proxy-wasm/proxy-wasm-go-sdk/proxywasm/types"
)

func main() {}

func init() {
	// SetTcpContext panics at this SDK version: a plugin context whose NewTcpContext returns the filter.
	proxywasm.SetPluginContext(func(uint32) types.PluginContext { return &plugin{} })
}

type plugin struct{ types.DefaultPluginContext }

func (*plugin) NewTcpContext(uint32) types.TcpContext { return &hostile{} }

type hostile struct{ types.DefaultTcpContext }

var hoard [][]byte

func (*hostile) OnDownstreamData(size int, endOfStream bool) types.Action {
	data, err := proxywasm.GetDownstreamData(0, size)
	if err != nil {
		return types.ActionContinue
	}
	switch {
	case bytes.Contains(data, []byte("boom")):
		panic("boom")
	case bytes.Contains(data, []byte("spin")):
		for x := uint64(1); x != 0; x = x*6364136223846793005 + 1 {
		}
	case bytes.Contains(data, []byte("hog")):
		for {
			hoard = append(hoard, make([]byte, 1<<20))
		}
	case bytes.Contains(data, []byte("grow")):
		chunk := make([]byte, 1<<20)
		for {
			_ = proxywasm.AppendDownstreamData(chunk)
		}
	case bytes.Contains(data, []byte("hold")):
		return types.ActionPause
	case bytes.Contains(data, []byte("close")):
		_ = proxywasm.CloseDownstream()
	}
	return types.ActionContinue
}
