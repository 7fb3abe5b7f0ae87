package io.weightstore.weights;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WeightstoreHomeTest {
    @TempDir
    Path tmp;

    private final String previous = System.getProperty(WeightstoreHome.PROPERTY);

    @AfterEach
    void restore() {
        if (previous == null) {
            System.clearProperty(WeightstoreHome.PROPERTY);
        } else {
            System.setProperty(WeightstoreHome.PROPERTY, previous);
        }
    }

    @Test
    void aNewHomeIsCreatedOpenToItsOwnerOnly() throws Exception {
        Path home = tmp.resolve("a").resolve("home");
        System.setProperty(WeightstoreHome.PROPERTY, home.toString());

        assertThat(WeightstoreHome.created()).isEqualTo(home);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(home))).isEqualTo("rwx------");
    }

    @Test
    void anExistingHomeKeepsTheModeItsOwnerGaveIt() throws Exception {
        Path home = Files.createDirectories(tmp.resolve("shared"));
        Files.setPosixFilePermissions(home, PosixFilePermissions.fromString("rwxr-x---"));
        System.setProperty(WeightstoreHome.PROPERTY, home.toString());

        WeightstoreHome.created();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(home))).isEqualTo("rwxr-x---");
    }
}
