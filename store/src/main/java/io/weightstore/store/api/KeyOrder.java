package io.weightstore.store.api;

import java.util.Comparator;

/**
 * The order of keys by the bytes of their UTF-8 form, which is the order of their code points: the
 * order S3 lists keys in, and etcd and RocksDB keep them in. {@link String#compareTo} compares UTF-16 units instead, which puts characters above
 * U+FFFF (two surrogate units, 0xD800-0xDFFF) before U+E000-U+FFFF.
 */
public final class KeyOrder {
    public static final Comparator<String> UTF8 = KeyOrder::compare;

    private KeyOrder() {}

    public static int compare(String a, String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            int ca = a.codePointAt(i);
            int cb = b.codePointAt(j);
            if (ca != cb) {
                return Integer.compare(ca, cb);
            }
            i += Character.charCount(ca);
            j += Character.charCount(cb);
        }
        return Boolean.compare(i < a.length(), j < b.length());
    }
}
