package io.weightstore.store.wire;

import java.util.Optional;

/** Data-plane request operations, by their code on the wire. */
public enum Op {
    READ(1),
    READ_RANGES(2),
    READ_STRIDED(3),
    WRITE(4);

    private final byte code;

    Op(int code) {
        this.code = (byte) code;
    }

    public byte code() {
        return code;
    }

    static Optional<Op> of(byte code) {
        for (Op op : values()) {
            if (op.code == code) {
                return Optional.of(op);
            }
        }
        return Optional.empty();
    }
}
