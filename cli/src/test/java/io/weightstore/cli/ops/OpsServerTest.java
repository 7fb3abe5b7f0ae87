package io.weightstore.cli.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.Test;

class OpsServerTest {
    @Test
    void readyQuotesAStateWithQuotesNewLinesAndControlCharactersAsValidJson() throws Exception {
        String state = "the master has not answered: \"UNAVAILABLE\\ io exception\nChannel Pipeline: [\u0001]\ttab";
        try (OpsServer ops = OpsServer.start("127.0.0.1", 0, List.of(), () -> Readiness.notReady(state));
                HttpClient http = HttpClient.newHttpClient()) {
            HttpResponse<String> ready = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + ops.port() + "/ready")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(ready.statusCode()).isEqualTo(503);
            JsonNode body = new ObjectMapper().readTree(ready.body());
            assertThat(body.get("status").asText()).isEqualTo("not ready");
            assertThat(body.get("state").asText()).isEqualTo(state);
        }
    }
}
