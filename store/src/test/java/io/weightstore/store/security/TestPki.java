package io.weightstore.store.security;

import io.weightstore.store.api.StoreException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/** A cluster CA in a test's temporary directory, and credentials issued by it. */
public final class TestPki {
    public final CertificateAuthority ca;
    private final Path root;

    private TestPki(CertificateAuthority ca, Path root) {
        this.ca = ca;
        this.root = root;
    }

    public static TestPki create(Path root, String caDir) throws StoreException {
        return new TestPki(CertificateAuthority.init(root.resolve(caDir)), root);
    }

    /** Credentials for {@code role} and {@code name} in {@code root/name}, valid for a day. */
    public Credentials issue(Role role, String name) throws StoreException {
        Path dir = root.resolve(ca.dir().getFileName() + "-" + name);
        ca.issue(role, name, dir, Duration.ofDays(1), List.of("127.0.0.1"));
        return Credentials.load(dir);
    }

    /** Credentials whose certificate expired an hour ago, read without the check {@link Credentials#load} makes. */
    public Credentials issueExpired(Role role, String name) throws StoreException {
        Path dir = root.resolve(ca.dir().getFileName() + "-" + name);
        Instant now = Instant.now();
        ca.issue(new Identity(name, role), dir, now.minus(Duration.ofDays(2)), now.minus(Duration.ofHours(1)),
                List.of(), false);
        return Credentials.read(dir);
    }
}
