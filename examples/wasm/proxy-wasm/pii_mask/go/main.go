// A proxy-wasm network filter (standard-Go SDK) that masks e-mail addresses in
// the JSON values of the records in Kafka Produce requests, as Cisco's Kafka PII
// filter does inside a proxy: it buffers until a whole request has arrived,
// parses it with franz-go's kmsg (Kafka's protocol in Go), rewrites every string
// in every JSON value, and re-encodes the request with fresh CRC-32Cs.
//
// The plugin configuration (transforms.X.config.* as a JSON object) may set
// "mask": the text an address becomes (default "***@***").
package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"regexp"

	"github.com/proxy-wasm/proxy-wasm-go-sdk/proxywasm"
	"github.com/proxy-wasm/proxy-wasm-go-sdk/proxywasm/types"
	"github.com/twmb/franz-go/pkg/kmsg"
)

var email = regexp.MustCompile(`[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}`)

func main() {}

func init() {
	// SetTcpContext panics at this SDK version (its plugin context has no HTTP
	// factory): register a plugin context whose NewTcpContext returns the filter.
	proxywasm.SetPluginContext(func(uint32) types.PluginContext { return &plugin{mask: "***@***"} })
}

type plugin struct {
	types.DefaultPluginContext
	mask string
}

func (p *plugin) OnPluginStart(size int) types.OnPluginStartStatus {
	if size == 0 {
		return types.OnPluginStartStatusOK
	}
	data, err := proxywasm.GetPluginConfiguration()
	if err != nil {
		proxywasm.LogCriticalf("cannot read the plugin configuration: %v", err)
		return types.OnPluginStartStatusFailed
	}
	var config struct {
		Mask *string `json:"mask"`
	}
	if err := json.Unmarshal(data, &config); err != nil {
		proxywasm.LogCriticalf("the plugin configuration is not JSON: %v", err)
		return types.OnPluginStartStatusFailed
	}
	if config.Mask != nil {
		p.mask = *config.Mask
	}
	return types.OnPluginStartStatusOK
}

func (p *plugin) NewTcpContext(uint32) types.TcpContext { return &filter{mask: p.mask} }

type filter struct {
	types.DefaultTcpContext
	mask string
}

func (f *filter) OnDownstreamData(size int, endOfStream bool) types.Action {
	if size == 0 {
		return types.ActionContinue
	}
	data, err := proxywasm.GetDownstreamData(0, size)
	if err != nil {
		proxywasm.LogCriticalf("cannot read downstream data: %v", err)
		return types.ActionContinue
	}
	var out []byte
	for len(data) > 0 {
		if len(data) < 4 || len(data) < 4+int(binary.BigEndian.Uint32(data)) {
			if endOfStream {
				return types.ActionContinue
			}
			return types.ActionPause // wait for the rest of the request
		}
		n := 4 + int(binary.BigEndian.Uint32(data))
		frame, err := f.maskRequest(data[4:n])
		if err != nil {
			proxywasm.LogCriticalf("cannot mask a Kafka request: %v", err)
			_ = proxywasm.CloseDownstream()
			return types.ActionContinue
		}
		out = binary.BigEndian.AppendUint32(out, uint32(len(frame)))
		out = append(out, frame...)
		data = data[n:]
	}
	if err := proxywasm.ReplaceDownstreamData(out); err != nil {
		proxywasm.LogCriticalf("cannot replace downstream data: %v", err)
	}
	return types.ActionContinue
}

// maskRequest masks a Produce request (v3 to v8; other requests pass through).
func (f *filter) maskRequest(frame []byte) ([]byte, error) {
	// request header v1: api key, api version, correlation id, client id (nullable string)
	if len(frame) < 10 || int16(binary.BigEndian.Uint16(frame)) != 0 {
		return frame, nil
	}
	version := int16(binary.BigEndian.Uint16(frame[2:]))
	bodyStart := 10
	if clientID := int16(binary.BigEndian.Uint16(frame[8:])); clientID > 0 {
		bodyStart += int(clientID)
	}
	if version < 3 || version > 8 || bodyStart > len(frame) {
		return nil, errUnsupported
	}
	request := kmsg.NewProduceRequest()
	request.Version = version
	if err := request.ReadFrom(frame[bodyStart:]); err != nil {
		return nil, err
	}
	for t := range request.Topics {
		for p := range request.Topics[t].Partitions {
			partition := &request.Topics[t].Partitions[p]
			records, err := f.maskBatches(partition.Records)
			if err != nil {
				return nil, err
			}
			partition.Records = records
		}
	}
	out := append([]byte(nil), frame[:bodyStart]...)
	return request.AppendTo(out), nil
}

func (f *filter) maskBatches(data []byte) ([]byte, error) {
	var out []byte
	for len(data) > 0 {
		if len(data) < 12 || len(data) < 12+int(int32(binary.BigEndian.Uint32(data[8:]))) {
			return nil, errTruncated
		}
		size := 12 + int(int32(binary.BigEndian.Uint32(data[8:])))
		var batch kmsg.RecordBatch
		if err := batch.ReadFrom(data[:size]); err != nil {
			return nil, err
		}
		data = data[size:]
		records, err := f.maskRecords(batch.Records, int(batch.NumRecords))
		if err != nil {
			return nil, err
		}
		batch.Records = records
		batch.Length = 0
		encoded := batch.AppendTo(nil)
		binary.BigEndian.PutUint32(encoded[8:], uint32(len(encoded)-12))
		binary.BigEndian.PutUint32(encoded[17:], crc32c(encoded[21:]))
		out = append(out, encoded...)
	}
	return out, nil
}

func (f *filter) maskRecords(data []byte, count int) ([]byte, error) {
	var out []byte
	for i := 0; i < count; i++ {
		var record kmsg.Record
		length, n := binary.Varint(data)
		if n <= 0 || len(data) < n+int(length) {
			return nil, errTruncated
		}
		if err := record.ReadFrom(data[:n+int(length)]); err != nil {
			return nil, err
		}
		data = data[n+int(length):]
		record.Value = f.maskValue(record.Value)
		record.Length = 0
		body := record.AppendTo(nil)
		_, skip := binary.Varint(body)
		out = binary.AppendVarint(out, int64(len(body)-skip))
		out = append(out, body[skip:]...)
	}
	return out, nil
}

// maskValue masks addresses in every string of a JSON value; other values pass through.
func (f *filter) maskValue(value []byte) []byte {
	var document any
	if value == nil || json.Unmarshal(value, &document) != nil {
		return value
	}
	var masked bytes.Buffer
	encoder := json.NewEncoder(&masked)
	encoder.SetEscapeHTML(false) // a mask such as <email> stays as written
	if err := encoder.Encode(f.maskStrings(document)); err != nil {
		return value
	}
	return bytes.TrimSuffix(masked.Bytes(), []byte("\n"))
}

func (f *filter) maskStrings(value any) any {
	switch v := value.(type) {
	case string:
		return email.ReplaceAllString(v, f.mask)
	case []any:
		for i := range v {
			v[i] = f.maskStrings(v[i])
		}
	case map[string]any:
		for key := range v {
			v[key] = f.maskStrings(v[key])
		}
	}
	return value
}
