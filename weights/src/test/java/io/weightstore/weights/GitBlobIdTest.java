package io.weightstore.weights;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The ids `git hash-object` gives the same bytes. */
class GitBlobIdTest {
    @Test
    void anEmptyFileHasGitsEmptyBlobId() {
        assertThat(GitBlobId.of(MemorySegment.ofArray(new byte[0]))).isEqualTo("e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
    }

    @Test
    void aLineOfTextHasTheIdGitGivesIt() {
        assertThat(GitBlobId.of(MemorySegment.ofArray("hello\n".getBytes(StandardCharsets.UTF_8))))
                .isEqualTo("ce013625030ba8dba906f756967f9e9ca394464a");
    }
}
