package io.weightstore.weights.loader;

import io.weightstore.weights.CheckpointId;
import io.weightstore.weights.LocalFiles;
import io.weightstore.weights.Manifest;
import io.weightstore.weights.ManifestFile;
import io.weightstore.weights.Sha256;
import io.weightstore.weights.WeightstoreHome;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The store's own cache of checkpoints' metadata files on this host: under
 * {@code $WEIGHTSTORE_HOME/metadata/ID}, a directory for each set of metadata files the checkpoint has had,
 * named by a digest of their paths, sizes and SHA-256s, and a file {@code current} naming the set a load
 * here wrote last, which the next load's engine starts on before the store opens.
 *
 * <p>A directory per set, not one per checkpoint: in one directory, a load of the version a replace just
 * superseded and a load of the new one rewrote each other's files under engines already reading them, and
 * an engine that had read a file before another process rewrote it could not tell (two processes, one
 * tokenizer of each version). Every process that writes a set's directory now writes the same bytes, and an
 * engine built on a directory other than the one its load wrote is built again.
 *
 * <p>Sets are never removed by a load (another process may be reading one); a set is a few files of
 * config and tokenizer, and a checkpoint has few.
 */
final class MetadataCache {
    private static final String CURRENT = "current";
    private static final Pattern SET_NAME = Pattern.compile("[0-9a-f]{32}");

    private MetadataCache() {}

    /** The directory of {@code manifest}'s set of metadata files. */
    static Path setDir(Manifest manifest) throws IOException {
        return checkpointDir(manifest.checkpointId()).resolve(setName(manifest));
    }

    /**
     * The name of {@code manifest}'s set: files recorded without a SHA-256 (a manifest of an early schema)
     * add the version, as their bytes may differ at one size.
     */
    static String setName(Manifest manifest) {
        Sha256 digest = new Sha256();
        manifest.files().stream().filter(file -> !file.isWeight()).sorted(Comparator.comparing(ManifestFile::path))
                .forEach(file -> digest.update(MemorySegment.ofArray((file.path() + '\0' + file.size() + '\0'
                        + (file.sha256() != null ? file.sha256() : "version " + manifest.version()) + '\n').getBytes(StandardCharsets.UTF_8))));
        return digest.hex().substring(0, 32);
    }

    /** The set a load on this host wrote last for checkpoint {@code id}, if its directory is still there. */
    static Optional<Path> current(CheckpointId id) throws IOException {
        Path pointer = checkpointDir(id).resolve(CURRENT);
        String name;
        try {
            name = Files.readString(pointer).strip();
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
        Path dir = pointer.resolveSibling(name);
        return SET_NAME.matcher(name).matches() && Files.isDirectory(dir) ? Optional.of(dir) : Optional.empty();
    }

    /** Names {@code setDir}, one of {@link #setDir}'s, as the set the next load on this host starts on; replaced whole. */
    static void makeCurrent(Path setDir) throws IOException {
        // Not forced to the disk: a pointer lost in a crash costs one load its early start, where a sync on every load would
        // cost each of them.
        LocalFiles.replaceUnsynced(setDir.resolveSibling(CURRENT), setDir.getFileName() + "\n");
    }

    private static Path checkpointDir(CheckpointId id) throws IOException {
        return WeightstoreHome.created().resolve("metadata").resolve(id.value());
    }
}
