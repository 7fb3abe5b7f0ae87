package io.weightstore.store.api;

import java.nio.charset.StandardCharsets;

/** The rules for object keys: UTF-8, 1 to 4096 bytes, no control characters. */
public final class ObjectKeys {
    public static final int MAX_KEY_BYTES = 4096;

    private ObjectKeys() {}

    public static String validate(String key) throws StoreException {
        if (key == null || key.isEmpty()) {
            throw new StoreException(StoreException.Code.INVALID_ARGUMENT, "object key must not be empty");
        }
        int bytes = key.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_KEY_BYTES) {
            throw new StoreException(StoreException.Code.INVALID_ARGUMENT,
                    "object key is " + bytes + " bytes, limit " + MAX_KEY_BYTES);
        }
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (Character.isISOControl(c)) {
                throw new StoreException(StoreException.Code.INVALID_ARGUMENT,
                        "object key contains control character 0x" + Integer.toHexString(c) + " at index " + i);
            }
            if (Character.isSurrogate(c) && !(Character.isHighSurrogate(c) && i + 1 < key.length()
                    && Character.isLowSurrogate(key.charAt(++i)))) {
                throw new StoreException(StoreException.Code.INVALID_ARGUMENT, "object key is not valid UTF-16 at index " + i);
            }
        }
        return key;
    }
}
