package io.weightstore.gateway;

import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerResponse;
import io.weightstore.gateway.s3.ErrorDocument;
import io.weightstore.gateway.s3.S3Error;
import java.util.Map;

/** Sends S3's XML answers: documents, and errors (with their document, except to a HEAD, whose answer has no body). */
final class Responses {
    private static final String XML = "application/xml";

    private Responses() {}

    static void xml(ServerResponse response, byte[] document) {
        response.status(Status.OK_200);
        response.header(HeaderNames.CONTENT_TYPE, XML);
        response.send(document);
    }

    static void error(ServerResponse response, S3Error error, boolean head, String resource, RequestId id) {
        response.status(Status.create(error.code().status()));
        for (Map.Entry<String, String> header : error.headers().entrySet()) {
            response.header(header.getKey(), header.getValue());
        }
        if (head) {
            response.send();
            return;
        }
        response.header(HeaderNames.CONTENT_TYPE, XML);
        response.send(ErrorDocument.render(error, resource, id.value()));
    }
}
