package io.weightstore.store.checksum;

/**
 * The CRC32C of two pieces of bytes one after the other, from the CRC32C of each and the second's
 * length, without the bytes: what lets one pass over a tensor give the CRC of every shard a rank may
 * read (rows, or columns gathered from every row). Arithmetic over GF(2), as zlib's
 * {@code crc32_combine}: appending {@code n} bytes multiplies the first CRC by x^(8n) modulo the
 * CRC32C polynomial, then adds the second. Values are those of {@link Checksums#crc32c}: its
 * pre- and post-inversion cancel in the sum.
 *
 * <p>{@link #forLength} precomputes the multiplication for one length as four byte tables, so each
 * join costs four lookups instead of a 32-step multiply.
 *
 * <p>The join can be undone: knowing the CRC32C of A followed by B and of one of the two pieces gives
 * the other's ({@link #firstOf}, {@link #secondOf}), since x is invertible modulo P (P's constant term
 * is 1). So a block whose CRC is known costs only the hashing of its smaller part to learn both parts'.
 */
public final class Crc32cCombine {
    /** The CRC32C polynomial, bit-reflected: bit 31 is the coefficient of x^0. */
    private static final int POLY = 0x82F63B78;
    private static final int ONE = 1 << 31;
    /** {@code POWERS[k]} = x^(2^k) mod P, far enough for x^(8n) with any non-negative long n. */
    private static final int[] POWERS = new int[Long.SIZE + 3];
    /**
     * {@code INVERSE_POWERS[k]} = x^(-2^k) mod P. As P = x·Q + 1, x·Q = 1 mod P, so x^-1 = Q = (P - 1) / x:
     * P's coefficients of x^1..x^31 moved down one place, and x^31.
     */
    private static final int[] INVERSE_POWERS = new int[Long.SIZE + 3];

    static {
        POWERS[0] = ONE >>> 1; // x^1
        INVERSE_POWERS[0] = (POLY << 1) | 1;
        for (int k = 1; k < POWERS.length; k++) {
            POWERS[k] = multiply(POWERS[k - 1], POWERS[k - 1]);
            INVERSE_POWERS[k] = multiply(INVERSE_POWERS[k - 1], INVERSE_POWERS[k - 1]);
        }
    }

    private final int[] table = new int[4 * 256];

    private Crc32cCombine(long lengthB) {
        int shift = xToThe8n(lengthB);
        // Multiplying by shift is linear over GF(2): a byte's entry is the XOR of its set bits' entries, so 32
        // multiplies fill the tables instead of 1024 (which cost a tensor's CRCs more than hashing its bytes).
        for (int j = 0; j < 4; j++) {
            for (int bit = 0; bit < 8; bit++) {
                int product = multiply(shift, 1 << (8 * j + bit));
                for (int b = 1 << bit; b < 2 << bit; b++) {
                    table[j * 256 + b] = table[j * 256 + b - (1 << bit)] ^ product;
                }
            }
        }
    }

    /** The CRC32C of A followed by B, from A's CRC32C, B's, and B's length in bytes. */
    public static int combine(int crcA, int crcB, long lengthB) {
        if (lengthB < 0) {
            throw new IllegalArgumentException("length must be >= 0: lengthB=" + lengthB);
        }
        return multiply(xToThe8n(lengthB), crcA) ^ crcB;
    }

    /** The CRC32C of B, from that of A followed by B and A's: the bytes of A need not be at hand. */
    public static int secondOf(int crcAB, int crcA, long lengthB) {
        return combine(crcA, crcAB, lengthB);
    }

    /** The CRC32C of A, from that of A followed by B, B's, and B's length: undoes {@link #combine}. */
    public static int firstOf(int crcAB, int crcB, long lengthB) {
        if (lengthB < 0) {
            throw new IllegalArgumentException("length must be >= 0: lengthB=" + lengthB);
        }
        return multiply(power(INVERSE_POWERS, lengthB), crcAB ^ crcB);
    }

    /** Joins many pairs whose second piece is always {@code lengthB} bytes long. */
    public static Crc32cCombine forLength(long lengthB) {
        if (lengthB < 0) {
            throw new IllegalArgumentException("length must be >= 0: lengthB=" + lengthB);
        }
        return new Crc32cCombine(lengthB);
    }

    /** The CRC32C of A followed by B, B being of this joiner's length. */
    public int combine(int crcA, int crcB) {
        return table[crcA & 0xff] ^ table[256 + ((crcA >>> 8) & 0xff)] ^ table[512 + ((crcA >>> 16) & 0xff)]
                ^ table[768 + (crcA >>> 24)] ^ crcB;
    }

    /** x^(8n) mod P. */
    private static int xToThe8n(long n) {
        return power(POWERS, n);
    }

    /** y^(8n) mod P, from {@code powers[k]} = y^(2^k). */
    private static int power(int[] powers, long n) {
        int power = ONE;
        for (int k = 3; n != 0; n >>>= 1, k++) {
            if ((n & 1) != 0) {
                power = multiply(powers[k], power);
            }
        }
        return power;
    }

    /** a(x) * b(x) mod P, both bit-reflected. */
    private static int multiply(int a, int b) {
        int product = 0;
        for (int bit = ONE; bit != 0 && a != 0; bit >>>= 1) {
            if ((a & bit) != 0) {
                product ^= b;
                a ^= bit;
            }
            b = (b & 1) != 0 ? (b >>> 1) ^ POLY : b >>> 1;
        }
        return product;
    }
}
