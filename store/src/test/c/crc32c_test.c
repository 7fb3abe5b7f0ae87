/*
 * The native CRC32C against a bit-by-bit reference, in each of its ways: the crc32 chains alone (what
 * other CPUs without VPCLMULQDQ run), folding with 128-bit carry-less multiplies (what Zen 1 runs; any
 * CPU that can run this library can run it) and, where this CPU can, with 256-bit and 512-bit ones.
 * The Java tests see only the way the build machine's CPU takes. Lengths reach past several rounds of
 * the longest chains, at every alignment, continuing from CRCs other than zero; cells run three side
 * by side, one by one for the last, and folded when long. Run by the store module's build after gcc
 * compiles it; exits non-zero when any case mismatches.
 */
#include "crc32c.c"

#include <stdio.h>
#include <stdlib.h>

static uint32_t reference(uint32_t crc, const uint8_t *p, size_t n) {
    crc = ~crc;
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int bit = 0; bit < 8; bit++) {
            crc = (crc & 1) ? (crc >> 1) ^ POLY_REFLECTED : crc >> 1;
        }
    }
    return ~crc;
}

/* Returns the number of mismatches over cases drawn from seed. */
static int compare(const uint8_t *bytes, size_t max, unsigned seed) {
    srand(seed);
    int mismatches = 0;
    for (int i = 0; i < 2000; i++) {
        size_t length = i < 1000 ? (size_t) rand() % 5000 : (size_t) rand() % max;
        size_t offset = (size_t) rand() % 64;
        uint32_t start = i % 3 == 0 ? 0 : (uint32_t) rand();
        uint32_t expected = reference(start, bytes + offset, length);
        uint32_t actual = weightstore_crc32c(start, bytes + offset, length);
        if (actual != expected) {
            fprintf(stderr, "crc32c_test: folding=%d length=%zu offset=%zu start=%08x: expected %08x, found %08x\n", folds, length,
                    offset, start, expected, actual);
            mismatches++;
        }
    }
    return mismatches;
}

/* Returns the number of cells whose CRC differs from the reference's, over cell sizes around each way's limits. */
static int compare_cells(const uint8_t *bytes, size_t max) {
    static const size_t sizes[] = {0, 1, 7, 8, 9, 96, 255, 256, 384, 1000, 1024, 2047, 2048, 2056, 2816, 5000, 16384};
    static uint32_t out[64];
    int mismatches = 0;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        for (size_t count = 0; count <= 7; count++) {
            size_t cell = sizes[s];
            size_t offset = (s + count) % 13;
            if (offset + cell * count > max) {
                continue;
            }
            weightstore_crc32c_cells(bytes + offset, cell, count, out);
            for (size_t i = 0; i < count; i++) {
                uint32_t expected = reference(0, bytes + offset + i * cell, cell);
                if (out[i] != expected) {
                    fprintf(stderr, "crc32c_test: cells folding=%d cell=%zu count=%zu index=%zu: expected %08x, found %08x\n", folds,
                            cell, count, i, expected, out[i]);
                    mismatches++;
                }
            }
        }
    }
    return mismatches;
}

int main(void) {
    int mode = weightstore_crc32c_init();
    if (mode == 0) {
        printf("crc32c_test: this CPU lacks SSE 4.2 or PCLMUL; the JDK's CRC32C is used instead, nothing to test\n");
        return 0;
    }
    size_t max = 200000;
    uint8_t *bytes = malloc(max + 64);
    if (bytes == NULL) {
        return 2;
    }
    srand(42);
    for (size_t i = 0; i < max + 64; i++) {
        bytes[i] = (uint8_t) rand();
    }
    folds = 0;
    int mismatches = compare(bytes, max, 7) + compare_cells(bytes, max);
    folds = 128;
    mismatches += compare(bytes, max, 10) + compare_cells(bytes, max);
    if (mode == 2 || mode == 3) {
        folds = 256;
        mismatches += compare(bytes, max, 8) + compare_cells(bytes, max);
    }
    if (mode == 2) {
        folds = 512;
        mismatches += compare(bytes, max, 9) + compare_cells(bytes, max);
    }
    free(bytes);
    printf("crc32c_test: %s, %d mismatches\n", mode == 2 ? "chains, 128-, 256- and 512-bit folding"
            : mode == 3 ? "chains, 128- and 256-bit folding (this CPU has no AVX-512)"
            : "chains and 128-bit folding (this CPU has no VPCLMULQDQ)", mismatches);
    return mismatches == 0 ? 0 : 1;
}
