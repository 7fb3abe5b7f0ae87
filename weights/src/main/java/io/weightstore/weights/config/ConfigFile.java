package io.weightstore.weights.config;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * The configuration file: YAML, one section per server or role, each a map from a flag's long name
 * (without the dashes) to its value.
 *
 * <pre>
 * client:                      # every command that opens a store, and engines through StoreLocator
 *   store: [m1:7070, m2:7070]  # or "m1:7070,m2:7070"
 *   credentials: /etc/weightstore/engine
 * master:
 *   port: 7070
 *   metrics-port: 9470
 * </pre>
 *
 * The file is {@code --config FILE} (which the command line hands over as the system property
 * {@value #PROPERTY}), else {@code $WEIGHTSTORE_CONFIG}. This class reads the structure and keeps
 * each value's line and column; what keys a section may hold, and what values, is checked by the
 * command line, which knows the flags. A Java properties file (the format before YAML) is refused
 * with its YAML translation.
 */
public record ConfigFile(Path path, Map<String, Section> sections) {
    /** A section, where its name is, and its settings by key. */
    public record Section(int line, int column, Map<String, ConfigValue> values) {
        public Section {
            values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
        }
    }

    public static final String ENV = "WEIGHTSTORE_CONFIG";
    public static final String PROPERTY = "weightstore.config";
    /** The section every client reads: which store, with which credentials. */
    public static final String CLIENT = "client";

    private static final YAMLFactory YAML = YAMLFactory.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();
    private static final Pattern PROPERTY_LINE = Pattern.compile("\\s*[A-Za-z][\\w.-]*\\s*[=:]\\s*\\S.*");

    public ConfigFile {
        sections = Collections.unmodifiableMap(new LinkedHashMap<>(sections));
    }

    /** The file the command line or the environment names, if any. */
    public static Optional<Path> location() {
        String named = System.getProperty(PROPERTY);
        if (named == null || named.isBlank()) {
            named = System.getenv(ENV);
        }
        return named == null || named.isBlank() ? Optional.empty() : Optional.of(Path.of(named.strip()));
    }

    /** The file {@link #location()} names, read; empty when none is named. */
    public static Optional<ConfigFile> current() throws ConfigException {
        Optional<Path> path = location();
        return path.isEmpty() ? Optional.empty() : Optional.of(read(path.get()));
    }

    /** A value of a section, if set. */
    public Optional<ConfigValue> value(String section, String key) {
        return Optional.ofNullable(sections.get(section)).map(found -> found.values().get(key));
    }

    public static ConfigFile read(Path path) throws ConfigException {
        String text;
        try {
            if (!Files.isRegularFile(path)) {
                throw problem(path, 1, 1, Files.exists(path) ? "not a regular file" : "no such file");
            }
            text = Files.readString(path, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw problem(path, 1, 1, "cannot read it: " + e.getMessage());
        }
        return parse(path, text);
    }

    static ConfigFile parse(Path path, String text) throws ConfigException {
        if (looksLikeProperties(text)) {
            throw problem(path, 1, 1, "this is a Java properties file, the format before YAML; weightstore reads YAML now. "
                    + "The same settings in YAML:\n" + translate(text));
        }
        Map<String, Section> sections = new LinkedHashMap<>();
        try (JsonParser parser = YAML.createParser(new StringReader(text))) {
            JsonToken root = parser.nextToken();
            if (root == null) {
                return new ConfigFile(path, sections); // an empty file sets nothing
            }
            if (root != JsonToken.START_OBJECT) {
                throw at(path, parser, "", "", "the file must be a map of sections (client:, master:, node:, gateway:, serve:)");
            }
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String section = parser.currentName();
                JsonLocation where = parser.currentTokenLocation();
                JsonToken start = parser.nextToken();
                if (start == JsonToken.VALUE_NULL) {
                    // "serve:" with nothing under it
                    sections.put(section, new Section(where.getLineNr(), where.getColumnNr(), Map.of()));
                    continue;
                }
                if (start != JsonToken.START_OBJECT) {
                    throw at(path, parser, section, "", "a section must be a map of settings (key: value), found " + describe(start));
                }
                sections.put(section, new Section(where.getLineNr(), where.getColumnNr(), section(path, parser, section)));
            }
            // A second document would be read by nothing: its credentials ignored, a client would connect in plain text.
            if (parser.nextToken() != null) {
                throw at(path, parser, "", "", "more than one YAML document ('---'): put every section in one");
            }
        } catch (JsonProcessingException e) {
            JsonLocation where = e.getLocation();
            throw problem(path, where == null ? 1 : Math.max(1, where.getLineNr()), where == null ? 1 : Math.max(1, where.getColumnNr()),
                    "not valid YAML: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw problem(path, 1, 1, "cannot read it: " + e.getMessage());
        }
        return new ConfigFile(path, sections);
    }

    private static Map<String, ConfigValue> section(Path path, JsonParser parser, String section) throws IOException, ConfigException {
        Map<String, ConfigValue> values = new LinkedHashMap<>();
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
            String key = parser.currentName();
            JsonToken token = parser.nextToken();
            JsonLocation where = parser.currentTokenLocation();
            if (token == JsonToken.START_ARRAY) {
                List<String> items = new ArrayList<>();
                for (JsonToken item; (item = parser.nextToken()) != JsonToken.END_ARRAY; ) {
                    if (!item.isScalarValue() || item == JsonToken.VALUE_NULL) {
                        throw at(path, parser, section, key, "a list may hold only plain values, found " + describe(item));
                    }
                    items.add(parser.getText());
                }
                values.put(key, new ConfigValue(items, true, where.getLineNr(), where.getColumnNr()));
            } else if (token.isScalarValue() && token != JsonToken.VALUE_NULL) {
                values.put(key, new ConfigValue(List.of(parser.getText()), false, where.getLineNr(), where.getColumnNr()));
            } else {
                throw at(path, parser, section, key, "expected a value or a list of values, found " + describe(token));
            }
        }
        return values;
    }

    private static String describe(JsonToken token) {
        return switch (token) {
            case START_OBJECT -> "a map";
            case START_ARRAY -> "a list";
            case VALUE_NULL -> "nothing (an empty value)";
            default -> "a value";
        };
    }

    /** Every non-comment line is {@code key=value} (or {@code key: value} without nesting, which YAML reads too). */
    private static boolean looksLikeProperties(String text) {
        boolean any = false;
        for (String line : text.lines().toList()) {
            String stripped = line.strip();
            if (stripped.isEmpty() || stripped.startsWith("#") || stripped.startsWith("!")) {
                continue;
            }
            if (!stripped.contains("=") || !PROPERTY_LINE.matcher(line).matches() || line.startsWith(" ")) {
                return false;
            }
            any = true;
        }
        return any;
    }

    /** The YAML for what an old properties file said: master, credentials, embedded.capacity. */
    private static String translate(String text) {
        Properties old = new Properties();
        try {
            old.load(new StringReader(text));
        } catch (IOException e) {
            return "  (the file could not be read as properties either: " + e.getMessage() + ")";
        }
        StringBuilder yaml = new StringBuilder("client:\n");
        Map<String, String> keys = Map.of("master", "store", "credentials", "credentials", "embedded.capacity", "embedded-capacity");
        for (String name : old.stringPropertyNames().stream().sorted().toList()) {
            String key = keys.get(name);
            yaml.append(key == null ? "  # unknown before too: " + name + "\n" : "  " + key + ": " + old.getProperty(name).strip() + "\n");
        }
        return yaml.toString();
    }

    private static ConfigException at(Path path, JsonParser parser, String section, String key, String message) {
        JsonLocation where = parser.currentTokenLocation();
        return new ConfigException(path, List.of(new ConfigProblem(where.getLineNr(), where.getColumnNr(), section, key, message)));
    }

    private static ConfigException problem(Path path, int line, int column, String message) {
        return new ConfigException(path, List.of(new ConfigProblem(line, column, "", "", message)));
    }
}
