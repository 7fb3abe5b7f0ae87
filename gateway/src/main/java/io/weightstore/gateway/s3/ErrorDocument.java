package io.weightstore.gateway.s3;

import java.util.Map;

/** The body of an error response: {@code <Error><Code/><Message/>…<Resource/><RequestId/></Error>}, as S3 writes it. */
public final class ErrorDocument {
    private ErrorDocument() {}

    /**
     * @param resource the request's path, decoded, as S3 names the resource
     */
    public static byte[] render(S3Error error, String resource, String requestId) {
        XmlWriter xml = new XmlWriter().root("Error", false).element("Code", error.code().code()).element("Message", error.getMessage());
        for (Map.Entry<String, String> detail : error.details().entrySet()) {
            xml.element(detail.getKey(), detail.getValue());
        }
        return xml.element("Resource", resource).element("RequestId", requestId).close("Error").toBytes();
    }
}
