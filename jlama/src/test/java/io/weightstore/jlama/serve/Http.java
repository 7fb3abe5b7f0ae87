package io.weightstore.jlama.serve;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** A plain HTTP client for one server, speaking JSON. */
record Http(HttpClient client, int port, String apiKey) {
    static final ObjectMapper JSON = new ObjectMapper();

    Http(int port) {
        this(HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build(), port, null);
    }

    Http withKey(String key) {
        return new Http(client, port, key);
    }

    record Reply(int status, String body, HttpResponse<String> raw) {
        JsonNode json() {
            try {
                return JSON.readTree(body);
            } catch (IOException e) {
                throw new AssertionError("not JSON (status " + status + "): " + body, e);
            }
        }

        JsonNode error() {
            return json().get("error");
        }

        /** The data of each server-sent event but the final [DONE]. */
        List<JsonNode> events() {
            List<JsonNode> events = new ArrayList<>();
            for (String line : body.split("\n")) {
                if (line.startsWith("data: ") && !line.equals("data: [DONE]")) {
                    try {
                        events.add(JSON.readTree(line.substring("data: ".length())));
                    } catch (IOException e) {
                        throw new AssertionError("event is not JSON: " + line, e);
                    }
                }
            }
            return events;
        }
    }

    Reply get(String path) throws IOException, InterruptedException {
        return send(request(path).GET());
    }

    Reply post(String path, String json) throws IOException, InterruptedException {
        return send(request(path).POST(HttpRequest.BodyPublishers.ofString(json)).header("Content-Type", "application/json"));
    }

    Reply send(String method, String path) throws IOException, InterruptedException {
        return send(request(path).method(method, HttpRequest.BodyPublishers.noBody()));
    }

    private HttpRequest.Builder request(String path) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(60));
        return apiKey == null ? builder : builder.header("Authorization", "Bearer " + apiKey);
    }

    private Reply send(HttpRequest.Builder request) throws IOException, InterruptedException {
        HttpResponse<String> response = client.send(request.build(), HttpResponse.BodyHandlers.ofString());
        return new Reply(response.statusCode(), response.body(), response);
    }

    /** A whole JSON POST as its bytes on the wire, for a test that writes it to a raw socket and then misbehaves. */
    static byte[] rawPost(String path, String json) {
        return ("POST " + path + " HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: "
                + json.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + json).getBytes(StandardCharsets.UTF_8);
    }
}
