package io.weightstore.store.wire;

/** Data-plane answer codes, in handshake replies and response headers. */
public enum Status {
    OK(0),
    /** The frame broke the protocol; the connection is closed after this answer. */
    BAD_REQUEST(1),
    /** A well-formed request for bytes outside the pool, or impossible lengths; the connection stays usable. */
    OUT_OF_RANGE(2),
    AUTH(3),
    /** A checksum block the node was asked to verify did not match. */
    CORRUPT(4),
    INTERNAL(5),
    VERSION(6),
    /** The node serves as many connections as it allows; try again later or elsewhere. */
    BUSY(7),
    /** The hello named a pool this node does not serve: the node the caller was sent to is not here any more. */
    WRONG_POOL(8);

    private final byte code;

    Status(int code) {
        this.code = (byte) code;
    }

    public byte code() {
        return code;
    }

    static Status of(int code) throws FrameException {
        for (Status status : values()) {
            if (status.code == code) {
                return status;
            }
        }
        throw new FrameException(BAD_REQUEST, true, "unknown status code " + code);
    }
}
