package io.weightstore.gateway.s3;

/**
 * The {@code ListBucketResult} of ListObjects and ListObjectsV2. With {@code encoding-type=url},
 * every key and prefix in it is percent-encoded (clients that asked decode them), so keys with
 * characters XML cannot carry still list.
 */
public final class ListDocument {
    private static final String OWNER = "weightstore";

    private ListDocument() {}

    public static byte[] render(String bucket, ListRequest request, ListPage page) {
        XmlWriter xml = new XmlWriter().root("ListBucketResult", true).element("Name", bucket).element("Prefix", text(request.prefix(), request));
        if (request.version() == 1) {
            xml.element("Marker", text(request.marker().orElse(""), request));
        }
        if (!request.delimiter().isEmpty()) {
            xml.element("Delimiter", text(request.delimiter(), request));
        }
        xml.element("MaxKeys", request.maxKeys());
        if (request.urlEncoded()) {
            xml.element("EncodingType", "url");
        }
        xml.element("IsTruncated", page.truncated());
        if (request.version() == 2) {
            xml.element("KeyCount", page.contents().size() + page.commonPrefixes().size());
            request.continuationToken().ifPresent(token -> xml.element("ContinuationToken", token));
            request.startAfter().ifPresent(startAfter -> xml.element("StartAfter", text(startAfter, request)));
        }
        if (page.truncated()) {
            String last = page.last().orElseThrow();
            if (request.version() == 2) {
                xml.element("NextContinuationToken", ListRequest.token(last));
            } else {
                xml.element("NextMarker", text(last, request));
            }
        }
        for (ObjectInfo object : page.contents()) {
            xml.open("Contents").element("Key", text(object.key(), request)).element("LastModified", HttpDates.iso(object.lastModified()))
                    .element("ETag", object.etag()).element("Size", object.size()).element("StorageClass", "STANDARD");
            if (request.fetchOwner()) {
                xml.open("Owner").element("ID", OWNER).element("DisplayName", OWNER).close("Owner");
            }
            xml.close("Contents");
        }
        for (String prefix : page.commonPrefixes()) {
            xml.open("CommonPrefixes").element("Prefix", text(prefix, request)).close("CommonPrefixes");
        }
        return xml.close("ListBucketResult").toBytes();
    }

    private static String text(String value, ListRequest request) {
        return request.urlEncoded() ? UriEncoding.encode(value, false) : value;
    }
}
