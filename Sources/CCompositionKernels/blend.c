// The alpha blend of one pair of I420 rows (rtenc_blend_rows in CCompositionKernels.h): portable C, and AVX2 (32
// luma columns of both rows and their 16 chroma columns per step, 16-bit lanes).
//
// Exactness: the portable code computes FAST_DIV255(c·(255 − w) + p·w + 128) in 16 bits: the sum is ≤ 255·255 + 128
// = 65 153, and ·257 >> 16 is `pmulhuw` by 257. The AVX2 code gets the same sum from one `pmaddubsw` per 16 lanes: with
// the pixels made signed (c' = c − 128, p' = p − 128, an xor with 0x80) and the weights as unsigned byte pairs
// (255 − w, w), pmaddubsw gives c'·(255 − w) + p'·w, which lies in [−128·255, 127·255] (no saturation), and
// c·(255 − w) + p·w + 128 = c'·(255 − w) + p'·w + 128·255 + 128 = that + 32 768: one 16-bit add of 0x8000 (it
// wraps into [128, 65 408], the unsigned sum). So both paths produce the same bytes. A block of 32 columns whose
// weights are all 0 is left alone and one whose weights are all 255 is copied: FAST_DIV255(255·c + 128) = c for
// every c, so both shortcuts give the same bytes as the arithmetic (masks and alpha mattes are mostly 0 and 255).
#include "CCompositionKernels.h"

#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define RTENC_HAVE_AVX2 1
#endif

/// In 16-bit arithmetic, which the compiler vectorises as 8 (SSE2) or 16 lanes with `pmulhuw` for ·257 >> 16.
static inline uint8_t mix(uint8_t canvas, uint8_t picture, uint16_t weight) {
    uint16_t sum = (uint16_t)(canvas * (uint16_t)(255 - weight) + picture * weight + 128);  // ≤ 65 153
    return (uint8_t)(((uint32_t)sum * 257u) >> 16);
}

/// One row of `count` samples; restrict (the rows never overlap) lets the compiler vectorise it.
static void mix_row(uint8_t *restrict canvas, const uint8_t *restrict picture, const uint8_t *restrict weight,
                    ptrdiff_t start, ptrdiff_t count) {
    for (ptrdiff_t x = start; x < count; x++) canvas[x] = mix(canvas[x], picture[x], weight[x]);
}

/// The chroma row: each weight the mean of the 2×2 luma weights, truncated.
static void mix_chroma_row(uint8_t *restrict canvas, const uint8_t *restrict picture, const uint8_t *restrict top,
                           const uint8_t *restrict bottom, ptrdiff_t start, ptrdiff_t count) {
    for (ptrdiff_t x = start; x < count; x++) {
        uint16_t w = (uint16_t)((top[2 * x] + top[2 * x + 1] + bottom[2 * x] + bottom[2 * x + 1]) >> 2);
        canvas[x] = mix(canvas[x], picture[x], w);
    }
}

/// Columns [start, count) the plain way (start even).
static void blend_portable(const rtenc_blend_rows_args *rows, ptrdiff_t start) {
    ptrdiff_t count = rows->count;
    mix_row(rows->canvas_luma, rows->picture_luma, rows->weight_top, start, count);
    mix_row(rows->canvas_luma + rows->canvas_luma_stride, rows->picture_luma + rows->picture_luma_stride,
            rows->weight_bottom, start, count);
    mix_chroma_row(rows->canvas_cb, rows->picture_cb, rows->weight_top, rows->weight_bottom, start >> 1, count >> 1);
    mix_chroma_row(rows->canvas_cr, rows->picture_cr, rows->weight_top, rows->weight_bottom, start >> 1, count >> 1);
}

#ifdef RTENC_HAVE_AVX2
#define AVX2 __attribute__((target("avx2")))

/// The mix of 16 samples from their byte pairs: `pixels` (c − 128, p − 128) as signed bytes, `weights` (255 − w, w)
/// as unsigned bytes (the header's proof: the 16-bit sum is exact, no saturation).
AVX2 static inline __m256i mix16(__m256i pixels, __m256i weights) {
    __m256i sum = _mm256_add_epi16(_mm256_maddubs_epi16(weights, pixels), _mm256_set1_epi16((short)0x8000));
    return _mm256_mulhi_epu16(sum, _mm256_set1_epi16(257));
}

/// 32 bytes of a row: interleaved within each 128-bit lane and packed back the same way, so no lane crossing.
AVX2 static inline void mix32(uint8_t *canvas, const uint8_t *picture, __m256i weight) {
    const __m256i bias = _mm256_set1_epi8((char)0x80), all = _mm256_set1_epi8((char)0xFF);
    __m256i c = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)canvas), bias);
    __m256i p = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)picture), bias);
    __m256i inverse = _mm256_xor_si256(weight, all);
    __m256i low = mix16(_mm256_unpacklo_epi8(c, p), _mm256_unpacklo_epi8(inverse, weight));
    __m256i high = mix16(_mm256_unpackhi_epi8(c, p), _mm256_unpackhi_epi8(inverse, weight));
    _mm256_storeu_si256((__m256i *)canvas, _mm256_packus_epi16(low, high));
}

/// 16 chroma samples with their weight pairs (16-bit lanes in column order, (255 − w) | w << 8).
AVX2 static inline void mix16_chroma(uint8_t *canvas, const uint8_t *picture, __m256i weights) {
    __m256i c = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)canvas));
    __m256i p = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)picture));
    __m256i pixels = _mm256_xor_si256(_mm256_or_si256(c, _mm256_slli_epi16(p, 8)), _mm256_set1_epi16(0x8080));
    __m256i mixed = mix16(pixels, weights);
    // packus works per 128-bit lane: quadwords 0 and 2 hold columns 0–7 and 8–15.
    __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi16(mixed, mixed), 0x08);
    _mm_storeu_si128((__m128i *)canvas, _mm256_castsi256_si128(packed));
}

AVX2 static void blend_avx2(const rtenc_blend_rows_args *rows) {
    // Locals, not the struct's fields: stores through the row pointers may alias the struct for the compiler, which
    // then reloads every field after each store.
    const ptrdiff_t count = rows->count;
    uint8_t *const canvas_top = rows->canvas_luma, *const canvas_bottom = rows->canvas_luma + rows->canvas_luma_stride;
    const uint8_t *const picture_top = rows->picture_luma;
    const uint8_t *const picture_bottom = rows->picture_luma + rows->picture_luma_stride;
    const uint8_t *const weight_top = rows->weight_top, *const weight_bottom = rows->weight_bottom;
    uint8_t *const canvas_cb = rows->canvas_cb, *const canvas_cr = rows->canvas_cr;
    const uint8_t *const picture_cb = rows->picture_cb, *const picture_cr = rows->picture_cr;
    const __m256i all = _mm256_set1_epi8((char)0xFF), ones = _mm256_set1_epi8(1);
    ptrdiff_t x = 0;
    for (; x + 32 <= count; x += 32) {
        __m256i top = _mm256_loadu_si256((const __m256i *)(weight_top + x));
        __m256i bottom = _mm256_loadu_si256((const __m256i *)(weight_bottom + x));
        __m256i any = _mm256_or_si256(top, bottom);
        if (_mm256_testz_si256(any, any)) continue;
        ptrdiff_t chroma = x >> 1;
        if (_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_and_si256(top, bottom), all)) == -1) {
            memcpy(canvas_top + x, picture_top + x, 32);
            memcpy(canvas_bottom + x, picture_bottom + x, 32);
            memcpy(canvas_cb + chroma, picture_cb + chroma, 16);
            memcpy(canvas_cr + chroma, picture_cr + chroma, 16);
            continue;
        }
        mix32(canvas_top + x, picture_top + x, top);
        mix32(canvas_bottom + x, picture_bottom + x, bottom);
        // The 2×2 means: maddubs adds horizontal pairs (≤ 510 each), in column order; ≤ 255 after the shift, so
        // the pair (255 − w, w) is w ^ 255 in the low byte and w << 8 in the high one.
        __m256i sums = _mm256_add_epi16(_mm256_maddubs_epi16(top, ones), _mm256_maddubs_epi16(bottom, ones));
        __m256i weight = _mm256_srli_epi16(sums, 2);
        __m256i weights = _mm256_or_si256(_mm256_xor_si256(weight, _mm256_set1_epi16(255)), _mm256_slli_epi16(weight, 8));
        mix16_chroma(canvas_cb + chroma, picture_cb + chroma, weights);
        mix16_chroma(canvas_cr + chroma, picture_cr + chroma, weights);
    }
    if (x < count) blend_portable(rows, x);
}
#endif

void rtenc_blend_rows(rtenc_kernel_path path, const rtenc_blend_rows_args *rows) {
#ifdef RTENC_HAVE_AVX2
    if (path == RTENC_KERNEL_AVX2 && rtenc_kernels_cpu_has_avx2()) {
        blend_avx2(rows);
        return;
    }
#endif
    (void)path;
    blend_portable(rows, 0);
}
