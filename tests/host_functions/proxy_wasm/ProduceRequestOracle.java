import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;

import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.Record;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * Reads the size-prefixed Produce requests in each file given with Kafka's own classes (request header,
 * ProduceRequestData, MemoryRecords with its CRC check) and prints one line per record:
 * correlation id, topic, partition, offset delta, timestamp, then key, value and each header (name, value)
 * in hex, "-" for null.
 */
public class ProduceRequestOracle {
    public static void main(String[] args) throws Exception {
        HexFormat hex = HexFormat.of();
        for (String file : args) {
            ByteBuffer stream = ByteBuffer.wrap(Files.readAllBytes(Path.of(file)));
            while (stream.hasRemaining()) {
                int size = stream.getInt();
                ByteBuffer frame = stream.slice(stream.position(), size);
                stream.position(stream.position() + size);
                RequestHeader header = RequestHeader.parse(frame);
                ProduceRequestData data = new ProduceRequestData(new ByteBufferAccessor(frame), header.apiVersion());
                for (ProduceRequestData.TopicProduceData topic : data.topicData()) {
                    for (ProduceRequestData.PartitionProduceData partition : topic.partitionData()) {
                        for (RecordBatch batch : ((MemoryRecords) partition.records()).batches()) {
                            batch.ensureValid();
                            for (Record record : batch) {
                                StringBuilder line = new StringBuilder();
                                line.append(header.correlationId()).append(' ').append(topic.name()).append(' ')
                                    .append(partition.index()).append(' ').append(record.offset() - batch.baseOffset())
                                    .append(' ').append(record.timestamp());
                                line.append(' ').append(bytes(hex, record.key())).append(' ').append(bytes(hex, record.value()));
                                for (Header h : record.headers()) {
                                    line.append(' ').append(hex.formatHex(h.key().getBytes("UTF-8")))
                                        .append(' ').append(h.value() == null ? "-" : hex.formatHex(h.value()));
                                }
                                System.out.println(line);
                            }
                        }
                    }
                }
            }
        }
    }

    private static String bytes(HexFormat hex, ByteBuffer buffer) {
        if (buffer == null) {
            return "-";
        }
        byte[] copy = new byte[buffer.remaining()];
        buffer.get(copy);
        return hex.formatHex(copy);
    }
}
