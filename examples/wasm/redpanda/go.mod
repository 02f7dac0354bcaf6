module redpanda-examples

go 1.22

require github.com/redpanda-data/redpanda/src/transform-sdk/go/transform v1.1.0
