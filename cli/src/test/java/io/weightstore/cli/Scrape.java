package io.weightstore.cli;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One scrape of a Prometheus text endpoint, parsed: each sample line's series (name and labels as
 * written, such as {@code weightstore_node_requests_total{op="read"}}; labels come sorted by name)
 * and its value.
 */
record Scrape(Map<String, Double> samples, String text) {
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final Pattern SAMPLE = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*(?:\\{[^}]*})?) (\\S+)(?: \\d+)?");

    static Scrape of(int port) throws IOException, InterruptedException {
        HttpResponse<String> response = get(port, "/metrics");
        if (response.statusCode() != 200) {
            throw new AssertionError("GET /metrics answered " + response.statusCode() + ": " + response.body());
        }
        return parse(response.body());
    }

    static HttpResponse<String> get(int port, String path) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    static Scrape parse(String text) {
        Map<String, Double> samples = new HashMap<>();
        for (String line : text.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            Matcher m = SAMPLE.matcher(line);
            if (!m.matches()) {
                throw new AssertionError("not a Prometheus sample line: " + line);
            }
            samples.put(m.group(1), Double.parseDouble(m.group(2)));
        }
        return new Scrape(samples, text);
    }

    /** The value of one series, or 0 when it is absent, as Prometheus treats a counter never incremented. */
    double value(String series) {
        return samples.getOrDefault(series, 0.0);
    }

    boolean has(String series) {
        return samples.containsKey(series);
    }

    /** Sum over every series of {@code name}, whatever its labels. */
    double sum(String name) {
        return samples.entrySet().stream().filter(e -> e.getKey().equals(name) || e.getKey().startsWith(name + "{"))
                .mapToDouble(Map.Entry::getValue).sum();
    }
}
