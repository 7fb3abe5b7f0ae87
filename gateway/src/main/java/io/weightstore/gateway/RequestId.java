package io.weightstore.gateway;

import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The id of one request: sent as {@code x-amz-request-id}, put in error documents, and logged, so a
 * client's error report leads to the gateway's log line.
 */
record RequestId(String value) {
    static RequestId next() {
        byte[] bytes = new byte[8];
        ThreadLocalRandom.current().nextBytes(bytes);
        return new RequestId(HexFormat.of().withUpperCase().formatHex(bytes));
    }
}
