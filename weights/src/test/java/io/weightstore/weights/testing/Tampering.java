package io.weightstore.weights.testing;

import io.weightstore.format.CheckpointDirectory;
import io.weightstore.format.CheckpointFile;
import io.weightstore.format.SafetensorsHeader;
import io.weightstore.format.TensorInfo;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/** What the integrity tests (here and the CLI's) do to a checkpoint's files, and where. */
public final class Tampering {
    /**
     * Five bytes holding the CRC32C generator polynomial (x^32 + …) as the CRC reads bits: XORed into
     * any bytes, it changes no CRC32C of a range that holds all five, since it adds a multiple of the
     * polynomial. What someone who can forge CRCs (a node holding a replica, say) could do.
     */
    public static final byte[] CRC_PRESERVING = {(byte) 0xF1, (byte) 0x76, (byte) 0xEC, (byte) 0x05, (byte) 0x01};

    private Tampering() {}

    /** Where a tensor lies: its file in the checkpoint, and its first byte's offset in that file. */
    public record Place(String file, long offset, TensorInfo info) {}

    public static Place place(Path checkpoint, String tensor) throws IOException {
        for (CheckpointFile file : CheckpointDirectory.read(checkpoint).files()) {
            if (file.header().isPresent()) {
                SafetensorsHeader header = file.header().get();
                for (TensorInfo info : header.tensors()) {
                    if (info.name().equals(tensor)) {
                        return new Place(file.path(), header.dataStart() + info.begin(), info);
                    }
                }
            }
        }
        throw new IllegalArgumentException("no tensor " + tensor + " in " + checkpoint);
    }

    /** A copy of {@code file} with {@code mask} XORed in at {@code offset}: the header stays valid. */
    public static Path xored(Path file, long offset, byte[] mask, Path out) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        for (int i = 0; i < mask.length; i++) {
            bytes[(int) offset + i] ^= mask[i];
        }
        return Files.write(out, bytes);
    }

    /** {@code count} bytes of 0xFF: XORed in, they invert that many bytes. */
    public static byte[] inverting(int count) {
        byte[] mask = new byte[count];
        Arrays.fill(mask, (byte) 0xFF);
        return mask;
    }
}
