package io.weightstore.format;

import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** The element types a safetensors file may declare, with their width in bits. */
public enum DType {
    BOOL(8),
    F4(4),
    F6_E2M3(6),
    F6_E3M2(6),
    U8(8),
    I8(8),
    F8_E5M2(8),
    F8_E4M3(8),
    F8_E8M0(8),
    F8_E4M3FNUZ(8),
    F8_E5M2FNUZ(8),
    I16(16),
    U16(16),
    F16(16),
    BF16(16),
    I32(32),
    U32(32),
    F32(32),
    C64(64),
    F64(64),
    I64(64),
    U64(64);

    private static final Map<String, DType> BY_NAME =
            Stream.of(values()).collect(Collectors.toUnmodifiableMap(DType::name, Function.identity()));

    private final int bits;

    DType(int bits) {
        this.bits = bits;
    }

    public int bits() {
        return bits;
    }

    /** The exact name as written in a safetensors header; names are case-sensitive. */
    public static Optional<DType> byName(String name) {
        return Optional.ofNullable(BY_NAME.get(name));
    }

    /**
     * Bytes taken by {@code numel} elements.
     *
     * @throws ArithmeticException when the size overflows a long or does not end on a byte boundary
     */
    public long byteSize(long numel) {
        long totalBits = Math.multiplyExact(numel, (long) bits);
        if (totalBits % Byte.SIZE != 0) {
            throw new ArithmeticException(numel + " elements of " + this + " take " + totalBits + " bits, not a whole number of bytes");
        }
        return totalBits / Byte.SIZE;
    }
}
