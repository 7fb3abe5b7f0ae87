package io.weightstore.gateway;

import io.weightstore.gateway.s3.ErrorDocument;
import io.weightstore.gateway.s3.S3Error;
import java.util.Map;

/** Sends S3's XML answers: documents, and errors (with their document, except to a HEAD, whose answer has no body). */
final class Responses {
    private static final String XML = "application/xml";

    private Responses() {}

    static void xml(Exchange exchange, byte[] document) {
        exchange.send(200, XML, document);
    }

    static void error(Exchange exchange, S3Error error, String resource) {
        for (Map.Entry<String, String> header : error.headers().entrySet()) {
            exchange.header(header.getKey(), header.getValue());
        }
        if (exchange.method().equals("HEAD")) {
            exchange.send(error.code().status());
            return;
        }
        exchange.send(error.code().status(), XML, ErrorDocument.render(error, resource, exchange.id().value()));
    }
}
