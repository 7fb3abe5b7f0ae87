package io.weightstore.weights;

/** Where a checkpoint lives in the store: {@code weights/<id>/manifest} and {@code weights/<id>/files/<path>}. */
public final class CatalogKeys {
    public static final String ROOT = "weights/";
    static final String MANIFEST = "/manifest";
    static final String FILES = "/files/";

    private CatalogKeys() {}

    public static String prefix(String id) {
        return ROOT + id + "/";
    }

    public static String manifest(String id) {
        return ROOT + id + MANIFEST;
    }

    public static String file(String id, String path) {
        return ROOT + id + FILES + path;
    }

    static String lock(String id) {
        return ROOT + id;
    }

    /** The checkpoint id of a manifest key, or null when the key is not a manifest. */
    static String idOfManifest(String key) {
        if (!key.startsWith(ROOT) || !key.endsWith(MANIFEST)) {
            return null;
        }
        String id = key.substring(ROOT.length(), key.length() - MANIFEST.length());
        return id.contains("/") ? null : id;
    }
}
