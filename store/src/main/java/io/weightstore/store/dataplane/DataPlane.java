package io.weightstore.store.dataplane;

/**
 * The data plane: a small framed binary protocol over TCP between clients and storage nodes. All
 * integers are big-endian. Offsets are relative to the start of the node's pool data region.
 *
 * <pre>
 * Handshake, client to node:   u32 MAGIC | u16 VERSION | u16 tokenLength (&le; MAX_TOKEN) | token bytes
 * Handshake, node to client:   u32 MAGIC | u16 VERSION | u16 status
 *
 * Request:   u8 op | u8 0 | u16 0 | u32 bodyLength (&le; MAX_BODY) | body [| payload, WRITE only]
 *   READ          u64 offset | u64 length | checks
 *   READ_RANGES   u32 count (&le; MAX_RANGES) | count x (u64 offset | u64 length) | checks
 *   READ_STRIDED  u64 offset | u64 blockLength | u64 stride | u32 count | checks
 *   WRITE         u64 offset | u64 length            followed by length payload bytes
 *   checks:       u32 count (&le; MAX_CHECKS) | count x (u64 offset | u32 length | u32 crc32c)
 *
 * Response:  u8 status | u8 0 | u16 messageLength | u64 payloadLength | message (UTF-8) | payload
 * </pre>
 *
 * <p>Reads may carry the CRC32C of checksum blocks of the pool; the node verifies those blocks before
 * sending anything and answers {@link #STATUS_CORRUPT} if one does not match, so the client moves to
 * another replica. The client sends the blocks it wants only part of (range edges, strided rows),
 * and checks the blocks it receives whole itself, so exactly the wanted bytes cross the network and
 * every byte is checked once.
 *
 * <p>A frame that breaks the rules (unknown op, bad lengths) is answered with
 * {@link #STATUS_BAD_REQUEST} and the connection is closed, since its framing can no longer be
 * trusted. A well-formed request for bytes outside the pool gets {@link #STATUS_OUT_OF_RANGE} and the
 * connection stays open. Nothing a peer sends can harm the node beyond its own connection.
 */
public final class DataPlane {
    public static final int MAGIC = 0x57534450; // "WSDP"
    public static final short VERSION = 1;
    public static final int MAX_TOKEN = 1024;

    public static final int REQUEST_HEADER_BYTES = 8;
    public static final int RESPONSE_HEADER_BYTES = 12;
    public static final int MAX_BODY = 1 << 20;
    public static final int MAX_RANGES = 16_384;
    public static final int MAX_CHECKS = 16_384;
    public static final int MAX_CHECK_BLOCK = 64 << 20;
    public static final int MAX_MESSAGE = 4096;

    public static final byte OP_READ = 1;
    public static final byte OP_READ_RANGES = 2;
    public static final byte OP_READ_STRIDED = 3;
    public static final byte OP_WRITE = 4;

    public static final byte STATUS_OK = 0;
    public static final byte STATUS_BAD_REQUEST = 1;
    public static final byte STATUS_OUT_OF_RANGE = 2;
    public static final byte STATUS_AUTH = 3;
    public static final byte STATUS_CORRUPT = 4;
    public static final byte STATUS_INTERNAL = 5;
    public static final byte STATUS_VERSION = 6;

    public static final int RANGE_BYTES = 16;
    public static final int CHECK_BYTES = 16;

    private DataPlane() {}

    public static String statusName(int status) {
        return switch (status) {
            case STATUS_OK -> "OK";
            case STATUS_BAD_REQUEST -> "BAD_REQUEST";
            case STATUS_OUT_OF_RANGE -> "OUT_OF_RANGE";
            case STATUS_AUTH -> "AUTH";
            case STATUS_CORRUPT -> "CORRUPT";
            case STATUS_INTERNAL -> "INTERNAL";
            case STATUS_VERSION -> "VERSION";
            default -> "UNKNOWN(" + status + ")";
        };
    }
}
