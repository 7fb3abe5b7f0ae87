package io.weightstore.store.security;

import io.weightstore.store.api.StoreException;
import io.weightstore.store.api.StoreException.Code;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The bearer tokens a master accepts, each bound to a name and a role, kept only as SHA-256 hashes:
 * a file of lines {@code name role sha256} that {@code weightstore cert token} appends to. A
 * presented token is compared with every entry in constant time, so timing says nothing about
 * which entry came close.
 */
public final class TokenRegistry {
    /** One issued token: who it names, its role, and its hash. */
    public record Entry(Identity identity, TokenHash hash) {}

    private final List<Entry> entries;

    private TokenRegistry(List<Entry> entries) {
        this.entries = List.copyOf(entries);
    }

    public static TokenRegistry none() {
        return new TokenRegistry(List.of());
    }

    public static TokenRegistry load(Path file) throws StoreException {
        List<String> lines;
        try {
            lines = Files.readAllLines(file);
        } catch (IOException e) {
            throw new StoreException(Code.IO, "cannot read tokens file " + file + ": " + e.getMessage(), e);
        }
        List<Entry> entries = new ArrayList<>();
        int number = 0;
        for (String line : lines) {
            number++;
            String trimmed = line.strip();
            if (trimmed.isEmpty() || trimmed.startsWith("#")) {
                continue;
            }
            String[] fields = trimmed.split("\\s+");
            if (fields.length != 3) {
                throw new StoreException(Code.INVALID_ARGUMENT, "tokens file " + file + " line " + number
                        + ": expected 'name role sha256', found " + fields.length + " fields");
            }
            try {
                Identity identity = new Identity(fields[0], Role.parse(fields[1]));
                if (!identity.role().takesTokens()) {
                    // A token of a node's role would let its holder register and heartbeat as that node.
                    throw new IllegalArgumentException("role=" + identity.role().label() + " of " + identity.name()
                            + " cannot hold a token: nodes and masters prove themselves with certificates");
                }
                entries.add(new Entry(identity, new TokenHash(fields[2])));
            } catch (IllegalArgumentException e) {
                throw new StoreException(Code.INVALID_ARGUMENT, "tokens file " + file + " line " + number + ": " + e.getMessage());
            }
        }
        return new TokenRegistry(entries);
    }

    /** The identity a presented token belongs to; every entry is checked, whatever matches first. */
    public Optional<Identity> identify(CharSequence presented) {
        Identity found = null;
        for (Entry entry : entries) {
            if (Tokens.verify(presented, entry.hash()) && found == null) {
                found = entry.identity();
            }
        }
        return Optional.ofNullable(found);
    }

    public int size() {
        return entries.size();
    }

    /** The line that records {@code identity}'s token in a tokens file. */
    public static String line(Identity identity, TokenHash hash) {
        return identity.name() + " " + identity.role().label() + " " + hash.sha256();
    }
}
