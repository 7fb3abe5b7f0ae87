package io.weightstore.weights;

/** What an import tells its caller as it goes; called from several threads. */
public interface ImportProgress {
    /** Before the first byte: how many bytes the import covers in all. */
    void started(long totalBytes, int files);

    /** More bytes are stored (or found already stored). */
    void advanced(long bytes);

    ImportProgress NONE = new ImportProgress() {
        @Override
        public void started(long totalBytes, int files) {}

        @Override
        public void advanced(long bytes) {}
    };
}
