package main

import (
	"errors"
	"hash/crc32"
)

var (
	castagnoli     = crc32.MakeTable(crc32.Castagnoli)
	errTruncated   = errors.New("a record batch or record runs past its end")
	errUnsupported = errors.New("only Produce requests v3 to v8 are supported")
)

// crc32c is the checksum of a record batch (from its attributes on), as brokers verify it.
func crc32c(data []byte) uint32 { return crc32.Checksum(data, castagnoli) }
