module proxy-wasm-examples

go 1.24

require (
	github.com/proxy-wasm/proxy-wasm-go-sdk v0.0.0-20260105142703-44c7d5847745
	github.com/twmb/franz-go/pkg/kmsg v1.9.0
)
