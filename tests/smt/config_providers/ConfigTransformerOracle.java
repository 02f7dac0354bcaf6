// Kafka's own ConfigTransformer and providers on values from a file: the oracle of
// test_kafka_oracle.py.  Arguments: ENV_FILE ALLOWED_PATH VALUES_FILE; each line of the
// files is base64 (ENV_FILE: "NAME VALUE"); prints one base64 line per transformed value,
// or "!" and the message of the ConfigException that value raised.
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.ConfigTransformer;
import org.apache.kafka.common.config.provider.ConfigProvider;
import org.apache.kafka.common.config.provider.DirectoryConfigProvider;
import org.apache.kafka.common.config.provider.EnvVarConfigProvider;
import org.apache.kafka.common.config.provider.FileConfigProvider;

public class ConfigTransformerOracle {
    private static String text(String base64) {
        return new String(Base64.getDecoder().decode(base64), StandardCharsets.UTF_8);
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> env = new HashMap<>();
        for (String line : Files.readAllLines(Path.of(args[0]))) {
            String[] parts = line.split(" ", 2);
            env.put(text(parts[0]), text(parts[1]));
        }
        EnvVarConfigProvider envProvider = new EnvVarConfigProvider(env);
        envProvider.configure(Map.of());
        FileConfigProvider fileProvider = new FileConfigProvider();
        fileProvider.configure(Map.of("allowed.paths", args[1]));
        DirectoryConfigProvider dirProvider = new DirectoryConfigProvider();
        dirProvider.configure(Map.of("allowed.paths", args[1]));
        Map<String, ConfigProvider> providers = Map.of("env", envProvider, "file", fileProvider, "dir", dirProvider);

        Base64.Encoder encoder = Base64.getEncoder();
        ConfigTransformer transformer = new ConfigTransformer(providers);
        for (String line : Files.readAllLines(Path.of(args[2]))) {
            try {
                String value = transformer.transform(Map.of("k", text(line))).data().get("k");
                System.out.println(encoder.encodeToString(value.getBytes(StandardCharsets.UTF_8)));
            } catch (ConfigException e) {
                System.out.println("!" + e.getMessage());
            }
        }
    }
}
