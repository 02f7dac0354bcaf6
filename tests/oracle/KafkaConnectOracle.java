// Test oracle: Kafka Connect's own classes run the cases spark-smt is compared with.
//
// Reads one JSON case per line on stdin and writes one JSON result per line on
// stdout, in order (flushed whenever no more input is waiting).  Kinds:
//
//   pipeline      {"config": {...pipeline keys...}, "records": [{topic, partition, offset,
//                  timestamp, key, value, headers: [[name, data]...]}]}  (data: base64 or null)
//                 Each record goes the way a sink task takes it in and a source task sends it
//                 out: key/value/header converters' toConnect*, the transformation chain
//                 (predicates, negate), then the converters' fromConnect*.  The chain sees
//                 SinkRecords, or SourceRecords when the case has "source_records": true (some
//                 of Debezium's transforms cast to SourceRecord, as they run in source connectors).
//                 -> {"records": [{"ok": {topic, partition, timestamp, key, value, headers}}
//                                  | {"dropped": true} | {"error": {stage, class, message}}]}
//                 or {"config_error": {class, message}}
//   to_connect    {"converter", "config", "is_key", "header", "topic", "data": [base64|null...]}
//                 -> {"items": [{"ok": <(schema, value) as JsonConverter's envelope>} | {"error"}]}
//   from_connect  {"converter", "config", "is_key", "header", "topic", "items": [<envelope>...]}
//                 -> {"items": [{"ok": base64|null} | {"error"}]}
//
// The envelope ({"schema": ..., "payload": ...}) is how (schema, value) pairs travel: read and
// written by a JsonConverter with schemas.enable=true.
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.connector.ConnectRecord;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.storage.Converter;
import org.apache.kafka.connect.storage.HeaderConverter;
import org.apache.kafka.connect.transforms.Transformation;
import org.apache.kafka.connect.transforms.predicates.Predicate;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

public class KafkaConnectOracle {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final String BYTE_ARRAY = "org.apache.kafka.connect.converters.ByteArrayConverter";
    private static final String SIMPLE_HEADER = "org.apache.kafka.connect.storage.SimpleHeaderConverter";
    private static final JsonConverter ENVELOPE = new JsonConverter();

    static {
        Map<String, Object> config = new HashMap<>();
        config.put("schemas.enable", "true");
        ENVELOPE.configure(config, false);
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
        String line;
        while ((line = in.readLine()) != null) {
            JsonNode request = MAPPER.readTree(line);
            ObjectNode result;
            switch (request.path("kind").asText()) {
                case "pipeline": result = pipeline(request); break;
                case "to_connect": result = toConnect(request); break;
                case "from_connect": result = fromConnect(request); break;
                default: throw new IllegalArgumentException("unknown kind in " + line);
            }
            out.println(MAPPER.writeValueAsString(result));
            if (!in.ready()) {
                out.flush();
            }
        }
        out.flush();
    }

    // --- pipeline cases ---------------------------------------------------------------------

    @SuppressWarnings("rawtypes")
    private static final class Stage {
        final Transformation transformation;
        final Predicate predicate;
        final boolean negate;

        Stage(Transformation transformation, Predicate predicate, boolean negate) {
            this.transformation = transformation;
            this.predicate = predicate;
            this.negate = negate;
        }
    }

    private static final class StageFailure extends Exception {
        final String stage;

        StageFailure(String stage, Throwable cause) {
            super(cause);
            this.stage = stage;
        }
    }

    private static ObjectNode pipeline(JsonNode request) {
        Map<String, String> config = strings(request.path("config"));
        Converter keyConverter;
        Converter valueConverter;
        HeaderConverter headerConverter;
        List<Stage> stages;
        try {
            keyConverter = converter(config, "key.converter", true);
            valueConverter = converter(config, "value.converter", false);
            headerConverter = headerConverter(config);
            stages = stages(config);
        } catch (Throwable e) {
            ObjectNode result = MAPPER.createObjectNode();
            result.set("config_error", error(null, e));
            return result;
        }
        ArrayNode records = MAPPER.createArrayNode();
        boolean asSource = request.path("source_records").asBoolean();
        for (JsonNode record : request.path("records")) {
            ObjectNode outcome = MAPPER.createObjectNode();
            try {
                ConnectRecord<?> in = read(record, keyConverter, valueConverter, headerConverter, asSource);
                ConnectRecord<?> transformed = transform(in, stages);
                if (transformed == null) {
                    outcome.put("dropped", true);
                } else {
                    outcome.set("ok", write(transformed, keyConverter, valueConverter, headerConverter));
                }
            } catch (StageFailure failure) {
                outcome.set("error", error(failure.stage, failure.getCause()));
            }
            records.add(outcome);
        }
        ObjectNode result = MAPPER.createObjectNode();
        result.set("records", records);
        return result;
    }

    private static ConnectRecord<?> read(JsonNode record, Converter keyConverter, Converter valueConverter,
                                         HeaderConverter headerConverter, boolean asSource) throws StageFailure {
        String topic = record.path("topic").asText();
        SchemaAndValue key = convertIn("KEY_CONVERTER", () -> keyConverter.toConnectData(topic, bytes(record.get("key"))));
        SchemaAndValue value = convertIn("VALUE_CONVERTER",
                () -> valueConverter.toConnectData(topic, bytes(record.get("value"))));
        ConnectHeaders headers = new ConnectHeaders();
        for (JsonNode header : record.path("headers")) {
            String name = header.get(0).asText();
            SchemaAndValue converted = convertIn("HEADER_CONVERTER",
                    () -> headerConverter.toConnectHeader(topic, name, bytes(header.get(1))));
            headers.add(name, converted);
        }
        Long timestamp = record.path("timestamp").isNull() ? null : record.path("timestamp").asLong();
        if (asSource) {
            return new SourceRecord(null, null, topic, record.path("partition").asInt(), key.schema(), key.value(),
                    value.schema(), value.value(), timestamp, headers);
        }
        return new SinkRecord(topic, record.path("partition").asInt(), key.schema(), key.value(),
                value.schema(), value.value(), record.path("offset").asLong(), timestamp,
                TimestampType.CREATE_TIME, headers);
    }

    private interface Step<T> {
        T run() throws Exception;
    }

    private static <T> T convertIn(String stage, Step<T> step) throws StageFailure {
        try {
            return step.run();
        } catch (Throwable e) {
            throw new StageFailure(stage, e);
        }
    }

    @SuppressWarnings("unchecked")
    private static ConnectRecord<?> transform(ConnectRecord<?> record, List<Stage> stages) throws StageFailure {
        ConnectRecord<?> current = record;
        for (Stage stage : stages) {
            try {
                if (stage.predicate == null || stage.negate ^ stage.predicate.test(current)) {
                    current = (ConnectRecord<?>) stage.transformation.apply(current);
                }
            } catch (Throwable e) {
                throw new StageFailure("TRANSFORMATION", e);
            }
            if (current == null) {
                return null;
            }
        }
        return current;
    }

    private static ObjectNode write(ConnectRecord<?> record, Converter keyConverter, Converter valueConverter,
                                    HeaderConverter headerConverter) throws StageFailure {
        String topic = record.topic();
        byte[] key = convertIn("KEY_CONVERTER", () -> keyConverter.fromConnectData(topic, record.keySchema(), record.key()));
        byte[] value = convertIn("VALUE_CONVERTER",
                () -> valueConverter.fromConnectData(topic, record.valueSchema(), record.value()));
        ArrayNode headers = MAPPER.createArrayNode();
        for (Header header : record.headers()) {
            byte[] data = convertIn("HEADER_CONVERTER",
                    () -> headerConverter.fromConnectHeader(topic, header.key(), header.schema(), header.value()));
            ArrayNode pair = headers.addArray();
            pair.add(header.key());
            pair.add(base64(data));
        }
        ObjectNode out = MAPPER.createObjectNode();
        out.put("topic", topic);
        out.put("partition", record.kafkaPartition());
        if (record.timestamp() == null) {
            out.putNull("timestamp");
        } else {
            out.put("timestamp", record.timestamp());
        }
        out.put("key", base64(key));
        out.put("value", base64(value));
        out.set("headers", headers);
        return out;
    }

    @SuppressWarnings("unchecked")
    private static List<Stage> stages(Map<String, String> config) throws Exception {
        Map<String, Predicate<SinkRecord>> predicates = new HashMap<>();
        for (String alias : aliases(config.get("predicates"))) {
            Map<String, String> own = withPrefix(config, "predicates." + alias + ".");
            Predicate<SinkRecord> predicate = (Predicate<SinkRecord>) instantiate(own.remove("type"));
            predicate.configure(own);
            predicates.put(alias, predicate);
        }
        List<Stage> stages = new ArrayList<>();
        for (String alias : aliases(config.get("transforms"))) {
            Map<String, String> own = withPrefix(config, "transforms." + alias + ".");
            String predicateAlias = own.remove("predicate");
            String negate = own.remove("negate");
            Transformation<SinkRecord> transformation = (Transformation<SinkRecord>) instantiate(own.get("type"));
            transformation.configure(own);
            Predicate<SinkRecord> predicate = predicateAlias == null ? null : predicates.get(predicateAlias.trim());
            stages.add(new Stage(transformation, predicate, negate != null && Boolean.parseBoolean(negate.trim())));
        }
        return stages;
    }

    private static List<String> aliases(String list) {
        List<String> aliases = new ArrayList<>();
        if (list != null) {
            for (String alias : list.split(",")) {
                if (!alias.trim().isEmpty()) {
                    aliases.add(alias.trim());
                }
            }
        }
        return aliases;
    }

    // --- converter cases --------------------------------------------------------------------

    private static ObjectNode toConnect(JsonNode request) {
        ArrayNode items = MAPPER.createArrayNode();
        ObjectNode result = MAPPER.createObjectNode();
        Object converter;
        try {
            converter = configuredConverter(request);
        } catch (Throwable e) {
            result.set("config_error", error(null, e));
            return result;
        }
        String topic = request.path("topic").asText();
        boolean header = request.path("header").asBoolean();
        for (JsonNode data : request.path("data")) {
            ObjectNode outcome = MAPPER.createObjectNode();
            try {
                byte[] bytes = bytes(data);
                SchemaAndValue read = header
                        ? ((HeaderConverter) converter).toConnectHeader(topic, "h", bytes)
                        : ((Converter) converter).toConnectData(topic, bytes);
                byte[] envelope = ENVELOPE.fromConnectData(topic, read.schema(), read.value());
                outcome.put("ok", envelope == null ? null : new String(envelope, StandardCharsets.UTF_8));
            } catch (Throwable e) {
                outcome.set("error", error(null, e));
            }
            items.add(outcome);
        }
        result.set("items", items);
        return result;
    }

    private static ObjectNode fromConnect(JsonNode request) {
        ArrayNode items = MAPPER.createArrayNode();
        ObjectNode result = MAPPER.createObjectNode();
        Object converter;
        try {
            converter = configuredConverter(request);
        } catch (Throwable e) {
            result.set("config_error", error(null, e));
            return result;
        }
        String topic = request.path("topic").asText();
        boolean header = request.path("header").asBoolean();
        for (JsonNode envelope : request.path("items")) {
            ObjectNode outcome = MAPPER.createObjectNode();
            try {
                SchemaAndValue data = ENVELOPE.toConnectData(topic, envelope.asText().getBytes(StandardCharsets.UTF_8));
                byte[] bytes = header
                        ? ((HeaderConverter) converter).fromConnectHeader(topic, "h", data.schema(), data.value())
                        : ((Converter) converter).fromConnectData(topic, data.schema(), data.value());
                outcome.put("ok", base64(bytes));
            } catch (Throwable e) {
                outcome.set("error", error(null, e));
            }
            items.add(outcome);
        }
        result.set("items", items);
        return result;
    }

    private static Object configuredConverter(JsonNode request) throws Exception {
        Map<String, String> config = strings(request.path("config"));
        Object converter = instantiate(request.path("converter").asText());
        if (request.path("header").asBoolean()) {
            config.put("converter.type", "header");
            ((HeaderConverter) converter).configure(config);
        } else {
            ((Converter) converter).configure(config, request.path("is_key").asBoolean());
        }
        return converter;
    }

    private static Converter converter(Map<String, String> config, String key, boolean isKey) throws Exception {
        Converter converter = (Converter) instantiate(config.getOrDefault(key, BYTE_ARRAY));
        converter.configure(withPrefix(config, key + "."), isKey);
        return converter;
    }

    private static HeaderConverter headerConverter(Map<String, String> config) throws Exception {
        HeaderConverter converter = (HeaderConverter) instantiate(config.getOrDefault("header.converter", SIMPLE_HEADER));
        Map<String, String> own = withPrefix(config, "header.converter.");
        own.put("converter.type", "header");
        converter.configure(own);
        return converter;
    }

    // --- helpers ------------------------------------------------------------------------------

    private static Object instantiate(String className) throws Exception {
        return Class.forName(className.trim()).getDeclaredConstructor().newInstance();
    }

    private static Map<String, String> strings(JsonNode object) {
        Map<String, String> map = new HashMap<>();
        Iterator<Map.Entry<String, JsonNode>> fields = object.fields();
        while (fields.hasNext()) {
            Map.Entry<String, JsonNode> field = fields.next();
            map.put(field.getKey(), field.getValue().asText());
        }
        return map;
    }

    private static Map<String, String> withPrefix(Map<String, String> config, String prefix) {
        Map<String, String> own = new HashMap<>();
        for (Map.Entry<String, String> entry : config.entrySet()) {
            if (entry.getKey().startsWith(prefix)) {
                own.put(entry.getKey().substring(prefix.length()), entry.getValue());
            }
        }
        return own;
    }

    private static byte[] bytes(JsonNode data) {
        return data == null || data.isNull() ? null : Base64.getDecoder().decode(data.asText());
    }

    private static String base64(byte[] data) {
        return data == null ? null : Base64.getEncoder().encodeToString(data);
    }

    private static ObjectNode error(String stage, Throwable e) {
        ObjectNode error = MAPPER.createObjectNode();
        if (stage != null) {
            error.put("stage", stage);
        }
        error.put("class", e.getClass().getName());
        error.put("message", String.valueOf(e.getMessage()));
        return error;
    }
}
