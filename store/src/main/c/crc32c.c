/*
 * CRC32C for the read path: the same values as java.util.zip.CRC32C, faster on this product's work.
 *
 * Every byte a client reads is checked as it arrives, so this loop runs on nearly every byte the
 * store moves. It keeps three independent crc32 chains going over three stretches of STREAM bytes
 * (more loads in flight, the CRC unit busy every cycle) and joins their CRCs by multiplying by
 * x^(8 * STREAM) modulo the polynomial with one carry-less multiply. On the project's 2-core EPYC
 * VMs it ran at 9.4 GB/s on a buffer out of cache and 19-20 GB/s in cache, where the JDK's CRC32C
 * ran at 5.3 and 14.7.
 *
 * On CPUs with AVX-512 and VPCLMULQDQ, long buffers are folded instead: four 512-bit accumulators
 * (sixteen 128-bit lanes) take 256 bytes a round, each lane carried 2048 bits forward by two
 * carry-less multiplies, and what is left is one 128-bit chunk that stands for every byte before
 * it, whose CRC the crc32 instruction then computes. On the 2-core EPYC (Zen 4) VM, `bench jmh
 * Crc32c`: 57.7 GB/s in cache (1 MiB) and 24.1 out of it (256 MiB), where the three chains alone ran
 * at 28 and 15, and the JDK 25 intrinsic, which folds the same way on such CPUs, at 56.3 and 24.9.
 *
 * On CPUs with VPCLMULQDQ but no AVX-512 (Zen 3), folding on four 256-bit accumulators (128 bytes
 * a round, each lane carried 1024 bits forward) alone ran at 19 GB/s in cache against the chains'
 * 15-22, as that CPU's carry-less multiplier takes two cycles a 256-bit product; but it is a unit
 * apart from the one that runs crc32. So long buffers go in super rounds of four stretches of STREAM
 * bytes: the first folded while the other three run on crc32 chains, in one loop that keeps both
 * units busy, then joined as the chains are. On the 2-core EPYC (Zen 3) VM, a C loop over one
 * buffer: 27-33 GB/s in cache (64 KiB, 1 MiB) against 15-23 for the chains alone, 11-15 out of it
 * (256 MiB) against 9-12.
 *
 * Zen 1 has no VPCLMULQDQ, and its crc32 takes a word per three cycles however many chains are in
 * flight: the chains ran at 5.6-6.0 GB/s (4 KiB to 1 MiB) where folding on eight 128-bit
 * accumulators alone, two PCLMULQDQ per 16 bytes, ran at 9.1-9.5 (8.4 against 5.6 out of cache, 8.3
 * against 4.4 at 512 bytes, and 7.9-8.8 against 5.2-5.6 for cells of 384 bytes to 2 KiB); folding
 * beside one to three chains measured between the two. So on Zen 1 everything from 256 bytes is folded.
 *
 * Compiled by the store module's build when gcc is present; the Java side falls back to the JDK
 * when this library is absent or the CPU lacks SSE 4.2 or PCLMUL.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <immintrin.h>

/*
 * Bytes per chain per round, three chains to a round: long rounds for the bulk, short ones for
 * what is left, so that at most 3 * SHORT_STREAM bytes go through a single chain.
 */
#define STREAM 8192
#define SHORT_STREAM 256

/* The CRC32C polynomial, bit-reflected. */
#define POLY_REFLECTED 0x82F63B78u

/* x^(8 * STREAM - 33) and x^(8 * SHORT_STREAM - 33) mod P, bit-reflected; see shift_register. */
static uint32_t shift_by_stream;
static uint32_t shift_by_short_stream;

/*
 * Bytes a folding round takes: four 64-byte accumulators, four 32-byte ones, or eight 16-byte ones
 * (the same distance as four 32-byte ones).
 */
#define FOLD_ROUND 256
#define FOLD_ROUND_256 128
#define FOLD_ROUND_128 128
/* Shorter buffers are not worth setting the accumulators up for. */
#define FOLD_MIN 2048
/* Where 128-bit folding is all this CPU does, it pays from two of its rounds on. */
#define FOLD_MIN_128 256

/* The width of the carry-less multiplies this CPU folds with: 512, 256, 128, or 0 for none. */
static int folds;
/*
 * Pairs of fold constants, a pair per distance: carrying a 128-bit lane D bits forward multiplies its
 * first 8 bytes by x^(D + 32) and its last 8 by x^(D - 32) mod P (bit-reflected, shifted left by one:
 * the reflected product lands one bit low, and the x^32 of the CRC is taken out), so that the product
 * XORed into the lane D bits on stands for the bytes it replaces. Index 0: D = 2048 (a round); 1: 512
 * (one accumulator into the next); 2, 3, 4: 384, 256 and 128 (lanes of the last accumulator into its last).
 * With 256-bit accumulators, 5: D = 1024 (a round); 3: one accumulator into the next; 4: its lanes.
 * With 128-bit accumulators, 5: D = 1024 (a round); 4: one accumulator into the next.
 */
static uint64_t fold_constants[6][2];

__attribute__((target("sse4.2")))
static uint32_t crc_serial(uint32_t reg, const uint8_t *p, size_t n) {
    for (; n >= 8; n -= 8, p += 8) {
        uint64_t word;
        memcpy(&word, p, sizeof word);
        reg = (uint32_t) _mm_crc32_u64(reg, word);
    }
    for (; n > 0; n--, p++) {
        reg = _mm_crc32_u8(reg, *p);
    }
    return reg;
}

/* x^n mod P, bit-reflected (bit 31 is x^0). */
static uint32_t x_to_the_mod_p(size_t n) {
    uint32_t power = 0x80000000u;
    for (size_t i = 0; i < n; i++) {
        power = (power & 1) ? (power >> 1) ^ POLY_REFLECTED : power >> 1;
    }
    return power;
}

/*
 * Returns 2 when this CPU runs weightstore_crc32c folding long buffers on 512-bit registers, 3 when
 * on 256-bit ones beside crc32 chains, 4 when on 128-bit ones alone, 1 when with crc32 chains only,
 * 0 when the caller must use another CRC32C.
 */
int weightstore_crc32c_init(void) {
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("sse4.2") || !__builtin_cpu_supports("pclmul")) {
        return 0;
    }
    shift_by_stream = x_to_the_mod_p(8 * STREAM - 33);
    shift_by_short_stream = x_to_the_mod_p(8 * SHORT_STREAM - 33);
    static const size_t distances[6] = {8 * FOLD_ROUND, 512, 384, 256, 128, 8 * FOLD_ROUND_256};
    for (int i = 0; i < 6; i++) {
        fold_constants[i][0] = (uint64_t) x_to_the_mod_p(distances[i] + 32) << 1;
        fold_constants[i][1] = (uint64_t) x_to_the_mod_p(distances[i] - 32) << 1;
    }
    folds = !__builtin_cpu_supports("vpclmulqdq") ? 0
            : __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") ? 512
            : __builtin_cpu_supports("avx2") ? 256 : 0;
    // Zen 1 runs crc32 one word per three cycles however many chains are in flight, and folding beside
    // them measured slower than folding alone.
    if (folds == 0 && __builtin_cpu_is("znver1")) {
        folds = 128;
    }
    return folds == 512 ? 2 : folds == 256 ? 3 : folds == 128 ? 4 : 1;
}

/* Each 128-bit lane of value carried forward by the distance of constants, XORed into next. */
__attribute__((target("avx512f,avx512vl,vpclmulqdq")))
static inline __m512i fold512(__m512i value, __m512i constants, __m512i next) {
    __m512i first = _mm512_clmulepi64_epi128(value, constants, 0x00);
    __m512i last = _mm512_clmulepi64_epi128(value, constants, 0x11);
    return _mm512_ternarylogic_epi64(first, last, next, 0x96);
}

__attribute__((target("sse4.2,pclmul")))
static inline __m128i fold128(__m128i value, const uint64_t constants[2], __m128i next) {
    __m128i k = _mm_set_epi64x((long long) constants[1], (long long) constants[0]);
    return _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(value, k, 0x00), _mm_clmulepi64_si128(value, k, 0x11)), next);
}

/* The CRC register after the bytes a folded chunk stands for: the crc32 of its 16 bytes from zero. */
__attribute__((target("sse4.2")))
static inline uint32_t chunk_crc(__m128i chunk) {
    uint64_t crc = _mm_crc32_u64(0, (uint64_t) _mm_cvtsi128_si64(chunk));
    return (uint32_t) _mm_crc32_u64(crc, (uint64_t) _mm_extract_epi64(chunk, 1));
}

/* As crc_fold, with eight 128-bit accumulators (n >= FOLD_ROUND_128). */
__attribute__((target("sse4.2,pclmul")))
static uint32_t crc_fold128(uint32_t reg, const uint8_t *p, size_t n, size_t *done) {
    __m128i acc[8];
    for (int i = 0; i < 8; i++) {
        acc[i] = _mm_loadu_si128((const __m128i *) (p + 16 * i));
    }
    acc[0] = _mm_xor_si128(acc[0], _mm_cvtsi32_si128((int) reg));
    size_t at = FOLD_ROUND_128;
    for (; n - at >= FOLD_ROUND_128; at += FOLD_ROUND_128) {
        for (int i = 0; i < 8; i++) {
            acc[i] = fold128(acc[i], fold_constants[5], _mm_loadu_si128((const __m128i *) (p + at + 16 * i)));
        }
    }
    __m128i chunk = acc[0];
    for (int i = 1; i < 8; i++) {
        chunk = fold128(chunk, fold_constants[4], acc[i]);
    }
    *done = at;
    return chunk_crc(chunk);
}

/*
 * Folds the rounds of FOLD_ROUND bytes at p (n >= FOLD_ROUND) into one 128-bit chunk and returns the
 * CRC register after it, starting from reg; *done gets the bytes consumed.
 */
__attribute__((target("avx512f,avx512vl,vpclmulqdq,sse4.2,pclmul")))
static uint32_t crc_fold(uint32_t reg, const uint8_t *p, size_t n, size_t *done) {
    // The register's start value is the same as XORing it into the first four bytes.
    __m512i acc0 = _mm512_xor_si512(_mm512_loadu_si512((const void *) p), _mm512_zextsi128_si512(_mm_cvtsi32_si128((int) reg)));
    __m512i acc1 = _mm512_loadu_si512((const void *) (p + 64));
    __m512i acc2 = _mm512_loadu_si512((const void *) (p + 128));
    __m512i acc3 = _mm512_loadu_si512((const void *) (p + 192));
    __m512i round = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *) fold_constants[0]));
    size_t at = FOLD_ROUND;
    for (; n - at >= FOLD_ROUND; at += FOLD_ROUND) {
        acc0 = fold512(acc0, round, _mm512_loadu_si512((const void *) (p + at)));
        acc1 = fold512(acc1, round, _mm512_loadu_si512((const void *) (p + at + 64)));
        acc2 = fold512(acc2, round, _mm512_loadu_si512((const void *) (p + at + 128)));
        acc3 = fold512(acc3, round, _mm512_loadu_si512((const void *) (p + at + 192)));
    }
    __m512i next = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *) fold_constants[1]));
    acc3 = fold512(fold512(fold512(acc0, next, acc1), next, acc2), next, acc3);
    __m128i chunk = _mm512_extracti32x4_epi32(acc3, 3);
    chunk = fold128(_mm512_extracti32x4_epi32(acc3, 2), fold_constants[4], chunk);
    chunk = fold128(_mm512_extracti32x4_epi32(acc3, 1), fold_constants[3], chunk);
    chunk = fold128(_mm512_extracti32x4_epi32(acc3, 0), fold_constants[2], chunk);
    *done = at;
    return chunk_crc(chunk);
}

__attribute__((target("avx2,vpclmulqdq")))
static inline __m256i fold256(__m256i value, __m256i constants, __m256i next) {
    __m256i first = _mm256_clmulepi64_epi128(value, constants, 0x00);
    __m256i last = _mm256_clmulepi64_epi128(value, constants, 0x11);
    return _mm256_xor_si256(_mm256_xor_si256(first, last), next);
}

/* Four 256-bit accumulators, folding FOLD_ROUND_256 bytes a round. */
typedef struct {
    __m256i acc[4];
} fold256_state;

/* The accumulators over the first FOLD_ROUND_256 bytes at p, for a CRC register of reg before them. */
__attribute__((target("avx2,vpclmulqdq")))
static inline fold256_state fold256_start(const uint8_t *p, uint32_t reg) {
    // The register's start value is the same as XORing it into the first four bytes.
    fold256_state s = {{_mm256_xor_si256(_mm256_loadu_si256((const __m256i *) p), _mm256_zextsi128_si256(_mm_cvtsi32_si128((int) reg))),
            _mm256_loadu_si256((const __m256i *) (p + 32)), _mm256_loadu_si256((const __m256i *) (p + 64)),
            _mm256_loadu_si256((const __m256i *) (p + 96))}};
    return s;
}

/* The next FOLD_ROUND_256 bytes at p folded in; round holds the constants for a round's distance. */
__attribute__((target("avx2,vpclmulqdq")))
static inline void fold256_round(fold256_state *s, __m256i round, const uint8_t *p) {
    for (int i = 0; i < 4; i++) {
        s->acc[i] = fold256(s->acc[i], round, _mm256_loadu_si256((const __m256i *) (p + 32 * i)));
    }
}

/* The CRC register after every byte folded in. */
__attribute__((target("avx2,vpclmulqdq,sse4.2,pclmul")))
static inline uint32_t fold256_finish(const fold256_state *s) {
    __m256i next = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *) fold_constants[3]));
    __m256i last = fold256(fold256(fold256(s->acc[0], next, s->acc[1]), next, s->acc[2]), next, s->acc[3]);
    return chunk_crc(fold128(_mm256_castsi256_si128(last), fold_constants[4], _mm256_extracti128_si256(last, 1)));
}

/* The constants that carry each 128-bit lane a round (8 * FOLD_ROUND_256 bits) forward, in both lanes. */
__attribute__((target("avx2,vpclmulqdq")))
static inline __m256i fold256_round_constants(void) {
    return _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *) fold_constants[5]));
}

/* As crc_fold, with 256-bit accumulators (n >= FOLD_ROUND_256). */
__attribute__((target("avx2,vpclmulqdq,sse4.2,pclmul")))
static uint32_t crc_fold256(uint32_t reg, const uint8_t *p, size_t n, size_t *done) {
    fold256_state s = fold256_start(p, reg);
    __m256i round = fold256_round_constants();
    size_t at = FOLD_ROUND_256;
    for (; n - at >= FOLD_ROUND_256; at += FOLD_ROUND_256) {
        fold256_round(&s, round, p + at);
    }
    *done = at;
    return fold256_finish(&s);
}

/*
 * reg * x^(8 * stream) mod P, given shift = x^(8 * stream - 33) mod P: the carry-less product is a
 * 63-bit polynomial, and crc32 of it as an 8-byte message multiplies by x^33 (x^32 for the CRC, one
 * more for the product's bit order) and reduces it modulo P.
 */
__attribute__((target("sse4.2,pclmul")))
static inline uint32_t shift_register(uint32_t reg, uint32_t shift) {
    __m128i product = _mm_clmulepi64_si128(_mm_cvtsi32_si128((int) reg), _mm_cvtsi32_si128((int) shift), 0);
    return (uint32_t) _mm_crc32_u64(0, (uint64_t) _mm_cvtsi128_si64(product));
}

/* Three chains over rounds of 3 * stream bytes while they last; returns the bytes consumed. */
__attribute__((target("sse4.2,pclmul")))
static inline size_t crc_rounds(uint32_t *reg, const uint8_t *p, size_t n, size_t stream, uint32_t shift) {
    size_t done = 0;
    for (; n - done >= 3 * stream; done += 3 * stream) {
        const uint8_t *round = p + done;
        uint64_t chain0 = *reg, chain1 = 0, chain2 = 0;
        for (size_t i = 0; i < stream; i += 8) {
            uint64_t word0, word1, word2;
            memcpy(&word0, round + i, 8);
            memcpy(&word1, round + stream + i, 8);
            memcpy(&word2, round + 2 * stream + i, 8);
            chain0 = _mm_crc32_u64(chain0, word0);
            chain1 = _mm_crc32_u64(chain1, word1);
            chain2 = _mm_crc32_u64(chain2, word2);
        }
        *reg = shift_register(shift_register((uint32_t) chain0, shift) ^ (uint32_t) chain1, shift) ^ (uint32_t) chain2;
    }
    return done;
}

/* Eight bytes of each of three chains, at offset at of stretches stream bytes apart from p. */
__attribute__((target("sse4.2")))
static inline void chains_step(uint64_t chain[3], const uint8_t *p, size_t stream, size_t at) {
    uint64_t word0, word1, word2;
    memcpy(&word0, p + at, 8);
    memcpy(&word1, p + stream + at, 8);
    memcpy(&word2, p + 2 * stream + at, 8);
    chain[0] = _mm_crc32_u64(chain[0], word0);
    chain[1] = _mm_crc32_u64(chain[1], word1);
    chain[2] = _mm_crc32_u64(chain[2], word2);
}

/*
 * Folds folded_bytes at folded (a multiple of FOLD_ROUND_256) into s, whose first round it holds,
 * while three crc32 chains take FOLD_ROUND_256 bytes a round of three stretches stride bytes apart
 * from chained, so that the carry-less multiplier and the crc32 unit work at once; returns the bytes
 * of each stretch the chains took: folded_bytes - FOLD_ROUND_256.
 */
__attribute__((target("avx2,vpclmulqdq,sse4.2")))
static inline size_t fold256_beside_chains(fold256_state *s, const uint8_t *folded, size_t folded_bytes, uint64_t chain[3],
        const uint8_t *chained, size_t stride) {
    __m256i round = fold256_round_constants();
    size_t at = 0;
    for (size_t f = FOLD_ROUND_256; f < folded_bytes; f += FOLD_ROUND_256) {
        fold256_round(s, round, folded + f);
        for (int word = 0; word < FOLD_ROUND_256 / 8; word++, at += 8) {
            chains_step(chain, chained, stride, at);
        }
    }
    return at;
}

/*
 * Super rounds of 4 * STREAM bytes while they last, each its first stretch folded on 256-bit
 * accumulators while three crc32 chains take the other three; returns the bytes consumed.
 */
__attribute__((target("avx2,vpclmulqdq,sse4.2,pclmul")))
static size_t crc_super_rounds(uint32_t *reg, const uint8_t *p, size_t n) {
    size_t done = 0;
    for (; n - done >= 4 * STREAM; done += 4 * STREAM) {
        const uint8_t *folded = p + done;
        const uint8_t *chained = folded + STREAM;
        fold256_state s = fold256_start(folded, *reg);
        uint64_t chain[3] = {0, 0, 0};
        for (size_t at = fold256_beside_chains(&s, folded, STREAM, chain, chained, STREAM); at < STREAM; at += 8) {
            chains_step(chain, chained, STREAM, at);
        }
        uint32_t joined = shift_register(fold256_finish(&s), shift_by_stream) ^ (uint32_t) chain[0];
        joined = shift_register(joined, shift_by_stream) ^ (uint32_t) chain[1];
        *reg = shift_register(joined, shift_by_stream) ^ (uint32_t) chain[2];
    }
    return done;
}

/* CRC32C of n bytes at p, continuing from crc (0 to start), as java.util.zip.CRC32C computes it. */
__attribute__((target("sse4.2,pclmul")))
uint32_t weightstore_crc32c(uint32_t crc, const uint8_t *p, size_t n) {
    uint32_t reg = ~crc;
    size_t done = 0;
    if (folds == 512 && n >= FOLD_MIN) {
        reg = crc_fold(reg, p, n, &done);
    } else if (folds == 256) {
        done = crc_super_rounds(&reg, p, n);
        if (n - done >= FOLD_MIN) {
            size_t folded;
            reg = crc_fold256(reg, p + done, n - done, &folded);
            done += folded;
        }
    } else if (folds == 128 && n >= FOLD_MIN_128) {
        reg = crc_fold128(reg, p, n, &done);
    }
    done += crc_rounds(&reg, p + done, n - done, STREAM, shift_by_stream);
    done += crc_rounds(&reg, p + done, n - done, SHORT_STREAM, shift_by_short_stream);
    return ~crc_serial(reg, p + done, n - done);
}

/* Cells shorter than this are not worth folding beside the chains. */
#define CELLS_FOLD_MIN 512

/*
 * Cells four at a time while they last (cell >= FOLD_ROUND_256): the first folded on 256-bit
 * accumulators while three crc32 chains take the other three, in one loop, as in crc_super_rounds;
 * returns the cells done.
 */
__attribute__((target("avx2,vpclmulqdq,sse4.2,pclmul")))
static size_t cells_by_four(const uint8_t *p, size_t cell, size_t count, uint32_t *out) {
    size_t words = cell & ~(size_t) 7;
    size_t foldable = cell - cell % FOLD_ROUND_256;
    size_t i = 0;
    for (; count - i >= 4; i += 4) {
        const uint8_t *folded = p + i * cell;
        const uint8_t *chained = folded + cell;
        fold256_state s = fold256_start(folded, 0xFFFFFFFFu);
        uint64_t chain[3] = {0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu};
        for (size_t at = fold256_beside_chains(&s, folded, foldable, chain, chained, cell); at < words; at += 8) {
            chains_step(chain, chained, cell, at);
        }
        out[i] = ~crc_serial(fold256_finish(&s), folded + foldable, cell - foldable);
        for (int k = 0; k < 3; k++) {
            out[i + 1 + k] = ~crc_serial((uint32_t) chain[k], chained + k * cell + words, cell - words);
        }
    }
    return i;
}

/*
 * The CRC32C of each of count cells of cell bytes, one after another from p, into out: a tensor's rows
 * cut into the pieces a column split makes, often a few hundred bytes to a few KiB each. One call per
 * cell would spend more on the call and on joining three chains than on the bytes; here three cells
 * run side by side instead, each its own chain, and nothing needs joining (four, one of them folded,
 * where the CPU folds on 256-bit registers).
 */
__attribute__((target("sse4.2,pclmul")))
void weightstore_crc32c_cells(const uint8_t *p, size_t cell, size_t count, uint32_t *out) {
    if ((folds == 512 && cell >= FOLD_MIN) || (folds == 128 && cell >= FOLD_MIN_128)) {
        for (size_t i = 0; i < count; i++) {
            out[i] = weightstore_crc32c(0, p + i * cell, cell);
        }
        return;
    }
    size_t words = cell & ~(size_t) 7;
    size_t i = folds == 256 && cell >= CELLS_FOLD_MIN ? cells_by_four(p, cell, count, out) : 0;
    for (; count - i >= 3; i += 3) {
        const uint8_t *cell0 = p + i * cell;
        uint64_t chain[3] = {0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu};
        for (size_t at = 0; at < words; at += 8) {
            chains_step(chain, cell0, cell, at);
        }
        for (int k = 0; k < 3; k++) {
            out[i + k] = ~crc_serial((uint32_t) chain[k], cell0 + k * cell + words, cell - words);
        }
    }
    for (; i < count; i++) {
        out[i] = weightstore_crc32c(0, p + i * cell, cell);
    }
}
