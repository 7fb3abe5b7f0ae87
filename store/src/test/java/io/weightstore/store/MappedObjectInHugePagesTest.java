package io.weightstore.store;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;

/** As {@link MappedObjectTest}, with the pools in a tmpfs of huge pages, whose blocks the check reads through the mapping. */
class MappedObjectInHugePagesTest extends MappedObjectTest {
    private HugeTmpfs huge;

    @Override
    protected Path clusterDir(Path tmp) throws Exception {
        huge = HugeTmpfs.mount(tmp.resolve("huge"), 256);
        return huge.dir().resolve("cluster");
    }

    @AfterEach
    void unmount() throws Exception {
        if (huge != null) {
            huge.close();
        }
    }
}
