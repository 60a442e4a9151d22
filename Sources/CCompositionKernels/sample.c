// Bilinear samples along a line (rtenc_sample_line in CCompositionKernels.h): the inner loop of the corner-pin warp.
// Portable C, and AVX2: eight samples per step. Where the eight lie within 15 columns and two rows (any warp that
// does not shrink the picture much), each row they read is one 16-byte load and a byte shuffle picks every sample's
// neighbour pairs out of it; elsewhere two 32-bit gathers per plane fetch them.
//
// Exactness: both paths compute ((256 − fv)·top + fv·bottom + 32768) >> 16 with top = (256 − fu)·p00 + fu·p01 and
// bottom = (256 − fu)·p10 + fu·p11, in integers that never round before the shift; the AVX2 path writes
// (256 − fv)·top + fv·bottom as 256·top + fv·(bottom − top), the same integer.
#include "CCompositionKernels.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define RTENC_HAVE_AVX2 1
#endif

static inline uint8_t bilinear(const uint8_t *plane, ptrdiff_t stride, int64_t u, int64_t v) {
    uint32_t fu = (uint32_t)((u >> 8) & 255), fv = (uint32_t)((v >> 8) & 255);
    const uint8_t *p = plane + (v >> 16) * stride + (u >> 16);
    uint32_t top = (256 - fu) * p[0] + fu * p[1];
    uint32_t bottom = (256 - fu) * p[stride] + fu * p[stride + 1];
    return (uint8_t)(((256 - fv) * top + fv * bottom + 32768) >> 16);
}

/// Samples [start, count) the plain way.
static void sample_portable(const rtenc_sample_line_args *line, ptrdiff_t start) {
    for (ptrdiff_t i = start; i < line->count; i++) {
        int64_t u = line->u + i * line->step_u, v = line->v + i * line->step_v;
        line->output[i] = bilinear(line->plane, line->stride, u, v);
        if (line->second) line->second_output[i] = bilinear(line->second, line->second_stride, u, v);
    }
}

#ifdef RTENC_HAVE_AVX2
#define AVX2 __attribute__((target("avx2")))

/// The eight bilinear results from each sample's top pair (p00, p01) and bottom pair (p10, p11), each pair two
/// 16-bit words of a 32-bit lane, and the weights: (256 − fu, fu) as two words, fv as a 32-bit lane.
AVX2 static inline __m256i interpolate8(__m256i top_pairs, __m256i bottom_pairs, __m256i weight_u, __m256i fv) {
    __m256i top = _mm256_madd_epi16(top_pairs, weight_u);        // ≤ 65 280
    __m256i bottom = _mm256_madd_epi16(bottom_pairs, weight_u);
    __m256i sum = _mm256_add_epi32(_mm256_slli_epi32(top, 8), _mm256_mullo_epi32(_mm256_sub_epi32(bottom, top), fv));
    return _mm256_srli_epi32(_mm256_add_epi32(sum, _mm256_set1_epi32(32768)), 16);
}

/// Eight samples at byte offsets `offset` (of p00) of `plane`, anywhere in it: two 32-bit gathers.
AVX2 static inline __m256i gathered8(const uint8_t *plane, ptrdiff_t stride, __m256i offset, __m256i weight_u,
                                     __m256i fv) {
    // p00 p01 in the low bytes of one gather; p10 p11 in the high bytes of the other, read from 2 bytes before the
    // bottom pair so that no gather reads past the bottom row's p11 (the first reads p00 … p00 + 3, inside the row
    // below).
    __m256i upper = _mm256_i32gather_epi32((const int *)plane, offset, 1);
    __m256i lower = _mm256_i32gather_epi32((const int *)(plane + stride - 2), offset, 1);
    const __m256i upper_pairs = _mm256_setr_epi8(0, -1, 1, -1, 4, -1, 5, -1, 8, -1, 9, -1, 12, -1, 13, -1,
                                                 0, -1, 1, -1, 4, -1, 5, -1, 8, -1, 9, -1, 12, -1, 13, -1);
    const __m256i lower_pairs = _mm256_setr_epi8(2, -1, 3, -1, 6, -1, 7, -1, 10, -1, 11, -1, 14, -1, 15, -1,
                                                 2, -1, 3, -1, 6, -1, 7, -1, 10, -1, 11, -1, 14, -1, 15, -1);
    return interpolate8(_mm256_shuffle_epi8(upper, upper_pairs), _mm256_shuffle_epi8(lower, lower_pairs), weight_u, fv);
}

/// Eight samples whose columns lie in one 16-byte window of every row they read, starting at column `base`, and
/// whose rows are `row` or `row` + 1 (`lower`: the lanes on `row` + 1): each row's window is one 16-byte load,
/// `pairs` picks each lane's two neighbours out of it (no gather).
AVX2 static inline __m256i windowed8(const uint8_t *plane, ptrdiff_t stride, ptrdiff_t row, ptrdiff_t base,
                                     int two_rows, __m256i lower, __m256i pairs, __m256i weight_u, __m256i fv) {
    const uint8_t *window = plane + row * stride + base;
    __m256i first = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)window));
    // The row after next, a cache line ahead: the picture and the warped frame outgrow L2, and a line is about
    // a pixel a row lower every row (perf: the next row's load was a third of the time). A prefetch never faults.
    _mm_prefetch((const char *)(window + 2 * stride + 64), _MM_HINT_T0);
    __m256i second = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(window + stride)));
    __m256i top = _mm256_shuffle_epi8(first, pairs), bottom = _mm256_shuffle_epi8(second, pairs);
    if (two_rows) {
        __m256i third = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(window + 2 * stride)));
        top = _mm256_blendv_epi8(top, bottom, lower);
        bottom = _mm256_blendv_epi8(bottom, _mm256_shuffle_epi8(third, pairs), lower);
    }
    return interpolate8(top, bottom, weight_u, fv);
}

/// The low byte of each of eight 32-bit lanes, stored as eight bytes.
AVX2 static inline void store8(uint8_t *output, __m256i values) {
    const __m256i low_bytes = _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                               0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
    __m256i packed = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(values, low_bytes),
                                                 _mm256_setr_epi32(0, 4, 0, 0, 0, 0, 0, 0));
    _mm_storel_epi64((__m128i *)output, _mm256_castsi256_si128(packed));
}

/// Whether every coordinate and byte offset of the line fits the 32-bit lanes (it does for any plane under 32 768
/// pixels a side and 2 GiB): the points lie between the two ends, so the ends decide.
static int fits_32_bits(const rtenc_sample_line_args *line) {
    int64_t last = line->count - 1;
    int64_t u_end = line->u + last * line->step_u, v_end = line->v + last * line->step_v;
    int64_t u_max = u_end > line->u ? u_end : line->u, v_max = v_end > line->v ? v_end : line->v;
    int64_t u_min = u_end < line->u ? u_end : line->u, v_min = v_end < line->v ? v_end : line->v;
    if (u_min < 0 || v_min < 0 || u_max > INT32_MAX || v_max > INT32_MAX || line->stride < 2) return 0;
    if (line->second && line->second_stride < 2) return 0;
    ptrdiff_t stride = line->second && line->second_stride > line->stride ? line->second_stride : line->stride;
    return ((v_max >> 16) + 1) * (int64_t)stride + (u_max >> 16) + 4 <= INT32_MAX;
}

AVX2 static void sample_avx2(const rtenc_sample_line_args *line) {
    if (line->count < 8 || !fits_32_bits(line)) {
        sample_portable(line, 0);
        return;
    }
    const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), bytes = _mm256_set1_epi32(255);
    // Lane k of a block starting at sample i: (u + i·step_u) + k·step_u (in 32 bits: fits_32_bits).
    const __m256i lane_u = _mm256_mullo_epi32(lanes, _mm256_set1_epi32((int)line->step_u));
    const __m256i lane_v = _mm256_mullo_epi32(lanes, _mm256_set1_epi32((int)line->step_v));
    const __m256i stride = _mm256_set1_epi32((int)line->stride);
    const __m256i second_stride = _mm256_set1_epi32((int)line->second_stride);
    // A window load reads 14 bytes before the block's last column: in the plane unless the block sits in the first
    // 14 bytes of the plane (row 0, columns < 14), which takes the gathers.
    const ptrdiff_t narrow = line->second && line->second_stride < line->stride ? line->second_stride : line->stride;
    const int windows = narrow >= 16;
    // Blocks of eight; the last one ends on the last sample, overlapping the one before (its samples are written
    // twice with the same bytes), so no sample is left to the scalar loop.
    for (ptrdiff_t next = 0; next < line->count;) {
        ptrdiff_t i = next + 8 <= line->count ? next : line->count - 8;
        next = i + 8;
        // The block's first and last points bound the others (a line): its columns and rows.
        int64_t u_first = line->u + i * line->step_u, u_last = u_first + 7 * line->step_u;
        int64_t v_first = line->v + i * line->step_v, v_last = v_first + 7 * line->step_v;
        __m256i u = _mm256_add_epi32(_mm256_set1_epi32((int)u_first), lane_u);
        __m256i v = _mm256_add_epi32(_mm256_set1_epi32((int)v_first), lane_v);
        __m256i fu = _mm256_and_si256(_mm256_srli_epi32(u, 8), bytes);
        __m256i fv = _mm256_and_si256(_mm256_srli_epi32(v, 8), bytes);
        __m256i weight_u = _mm256_or_si256(_mm256_sub_epi32(_mm256_set1_epi32(256), fu), _mm256_slli_epi32(fu, 16));
        __m256i column = _mm256_srli_epi32(u, 16), row = _mm256_srli_epi32(v, 16);
        ptrdiff_t column_low = (ptrdiff_t)((u_first < u_last ? u_first : u_last) >> 16);
        ptrdiff_t column_high = (ptrdiff_t)((u_first < u_last ? u_last : u_first) >> 16);
        ptrdiff_t row_low = (ptrdiff_t)((v_first < v_last ? v_first : v_last) >> 16);
        ptrdiff_t row_high = (ptrdiff_t)((v_first < v_last ? v_last : v_first) >> 16);
        if (windows && column_high - column_low <= 14 && row_high - row_low <= 1 && row_low * narrow + column_high >= 14) {
            // Each lane's neighbours at window bytes d and d + 1, d = column − base ≤ 14: the shuffle control
            // (d, zero, d + 1, zero) per lane.
            ptrdiff_t base = column_high - 14;
            __m256i d = _mm256_sub_epi32(column, _mm256_set1_epi32((int)base));
            __m256i pairs = _mm256_add_epi32(_mm256_add_epi32(d, _mm256_slli_epi32(d, 16)),
                                             _mm256_set1_epi32((int)0x80018000u));
            __m256i lower = _mm256_cmpgt_epi32(row, _mm256_set1_epi32((int)row_low));
            int two_rows = row_high > row_low;
            store8(line->output + i,
                   windowed8(line->plane, line->stride, row_low, base, two_rows, lower, pairs, weight_u, fv));
            if (line->second) {
                store8(line->second_output + i, windowed8(line->second, line->second_stride, row_low, base,
                                                          two_rows, lower, pairs, weight_u, fv));
            }
        } else {
            __m256i offset = _mm256_add_epi32(_mm256_mullo_epi32(row, stride), column);
            store8(line->output + i, gathered8(line->plane, line->stride, offset, weight_u, fv));
            if (line->second) {
                __m256i second_offset = line->second_stride == line->stride
                    ? offset : _mm256_add_epi32(_mm256_mullo_epi32(row, second_stride), column);
                store8(line->second_output + i, gathered8(line->second, line->second_stride, second_offset, weight_u, fv));
            }
        }
    }
}
#endif

void rtenc_sample_line(rtenc_kernel_path path, const rtenc_sample_line_args *line) {
    if (line->count <= 0) return;
#ifdef RTENC_HAVE_AVX2
    if (path == RTENC_KERNEL_AVX2 && rtenc_kernels_cpu_has_avx2()) {
        sample_avx2(line);
        return;
    }
#endif
    (void)path;
    sample_portable(line, 0);
}
