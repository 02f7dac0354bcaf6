// Test oracle: loads each .properties file named on the command line with
// java.util.Properties.load(Reader) over UTF-8 and prints one JSON line per
// file, {"ok": {...}} or {"error": "..."}, every non-ASCII char JSON-escaped.
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

public class PropertiesDump {
    public static void main(String[] args) throws Exception {
        for (String arg : args) {
            Properties props = new Properties();
            try (Reader reader = new InputStreamReader(Files.newInputStream(Path.of(arg)), StandardCharsets.UTF_8)) {
                props.load(reader);
            } catch (IllegalArgumentException e) {
                System.out.println("{\"error\": " + quote(String.valueOf(e.getMessage())) + "}");
                continue;
            }
            StringBuilder out = new StringBuilder("{\"ok\": {");
            String comma = "";
            for (String key : props.stringPropertyNames()) {
                out.append(comma).append(quote(key)).append(": ").append(quote(props.getProperty(key)));
                comma = ", ";
            }
            System.out.println(out.append("}}"));
        }
    }

    private static String quote(String s) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20 || c > 0x7e) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.append('"').toString();
    }
}
