package io.weightstore.format;

import static io.weightstore.format.SafetensorsFormatException.Rule;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * A directory a checkpoint's files were found under, as validation saw it: its real path and its
 * identity (device and inode), so that whoever opens it again later can tell it is still the same
 * directory and not one moved or linked into its place since.
 *
 * @param realPath the directory's path, with no link in it
 * @param fileKey its identity, as {@link BasicFileAttributes#fileKey()} gives it
 */
public record ValidatedDirectory(Path realPath, Object fileKey) {
    /** {@code realPath} as it is now: refused when it is a link, or no directory. */
    public static ValidatedDirectory of(Path realPath) throws IOException {
        BasicFileAttributes attributes = Files.readAttributes(realPath, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (!attributes.isDirectory()) {
            throw new SafetensorsFormatException(Rule.DIRECTORY, "not a directory: " + realPath
                    + (attributes.isSymbolicLink() ? " (a link put there while it was read)" : ""));
        }
        return new ValidatedDirectory(realPath, attributes.fileKey());
    }
}
