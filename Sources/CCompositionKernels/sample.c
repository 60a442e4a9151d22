// Bilinear samples along a line (rtenc_sample_line in CCompositionKernels.h): the inner loop of the corner-pin warp.
// Portable C, and AVX2: eight samples per step. Where the eight lie within 15 columns and two rows (any warp that
// does not shrink the picture much), each row they read is one 16-byte load and a byte shuffle picks every sample's
// neighbour pairs out of it; elsewhere two 32-bit gathers per plane fetch them.
//
// Exactness: both paths compute ((256 − fv)·top + fv·bottom + 32768) >> 16 with top = (256 − fu)·p00 + fu·p01 and
// bottom = (256 − fu)·p10 + fu·p11, in integers that never round before the shift; the AVX2 path writes
// (256 − fv)·top + fv·bottom as 256·top + fv·(bottom − top), the same integer.
#include "CCompositionKernels.h"

#include <math.h>
#include <string.h>

// The warp row's span ends must round exactly as the Swift reference's separate multiplies and adds do.
#pragma STDC FP_CONTRACT OFF

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

/// The line in blocks of eight: count ≥ 8 and fits_32_bits(line).
AVX2 static void sample_avx2_blocks(const rtenc_sample_line_args *line) {
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

AVX2 static void sample_avx2(const rtenc_sample_line_args *line) {
    if (line->count < 8 || !fits_32_bits(line)) {
        sample_portable(line, 0);
        return;
    }
    sample_avx2_blocks(line);
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

// MARK: The warp row (rtenc_warp_row)

/// The map at pixel x in 16.16 fixed point, clamped: the Swift it replaced (WarpRowKernelTests' Map.fixed), operation
/// for operation, except that the division by `divisor` is a multiplication by `reciprocal` when that gives the same
/// double (a power of two: both are the exact quotient rounded once).
static inline void fixed_point(const rtenc_warp_row_args *row, double reciprocal, ptrdiff_t x, int64_t *u,
                               int64_t *v) {
    double position = (double)x, denominator = row->d + row->step_d * position;
    double scale = 65536 / denominator;
    if (!isfinite(scale)) {
        *u = 0;
        *v = 0;
        return;
    }
    double fu = (row->u + row->step_u * position) * scale + row->bias;
    double fv = (row->v + row->step_v * position) * scale + row->bias;
    if (reciprocal != 0) {
        fu *= reciprocal;
        fv *= reciprocal;
    } else {
        fu /= row->divisor;
        fv /= row->divisor;
    }
    // Comparisons first: NaN and infinities never reach the conversion.
    double maximum_u = (double)row->maximum_u, maximum_v = (double)row->maximum_v;
    double clamped_u = fu > 0 ? (fu < maximum_u ? fu : maximum_u) : 0;
    double clamped_v = fv > 0 ? (fv < maximum_v ? fv : maximum_v) : 0;
    *u = (int64_t)clamped_u;
    *v = (int64_t)clamped_v;
}

/// Swift's max(x, y) and min(x, y) (y ≥ x ? y : x and y < x ? y : x), the same choice when either is NaN.
static inline double swift_max(double x, double y) { return y >= x ? y : x; }
static inline double swift_min(double x, double y) { return y < x ? y : x; }

/// The span length for columns [start, end): the Swift it replaced (WarpRowKernelTests' referenceSpanLength; linear
/// interpolation of N/D over L
/// pixels is off by at most L² · |D′/D| · |f′| / 4; L chosen for 1/512 pixel from the worse end).
static ptrdiff_t span_length(const rtenc_warp_row_args *row) {
    double worst = 0;
    double ends[2] = {(double)row->start, (double)(row->end - 1)};
    for (int i = 0; i < 2; i++) {
        double x = ends[i], d = row->d + row->step_d * x;
        double r = fabs(row->step_d / d);
        double slope_u = fabs((row->step_u * d - (row->u + row->step_u * x) * row->step_d) / (d * d));
        double slope_v = fabs((row->step_v * d - (row->v + row->step_v * x) * row->step_d) / (d * d));
        worst = swift_max(worst, r * swift_max(slope_u, slope_v));
    }
    if (!(worst > 0) || !isfinite(worst)) return row->maximum_span;
    ptrdiff_t length = (ptrdiff_t)swift_min((double)row->maximum_span, swift_max(2, sqrt(1 / (128 * worst))));
    // Whole blocks of eight where the span allows (a shorter span errs less): the AVX2 sampler's last block of a
    // run overlaps the one before, which costs a third more samples on an 18-pixel span.
    return length >= 8 ? length & ~(ptrdiff_t)7 : length;
}

/// 1 / divisor when that is a power of two (then x · (1 / divisor) = x / divisor for every double x), else 0.
static double exact_reciprocal(double divisor) {
    int exponent;
    double mantissa = frexp(divisor, &exponent);
    return mantissa == 0.5 && isfinite(divisor) ? 1 / divisor : 0;
}

/// One run of samples of the row: through `sample` (the path's sampler), the coverage filled for an opaque picture.
static inline void warp_run(const rtenc_warp_row_args *row, ptrdiff_t x, ptrdiff_t count, int64_t u, int64_t v,
                            int64_t step_u, int64_t step_v, void (*sample)(const rtenc_sample_line_args *)) {
    rtenc_sample_line_args line = {
        .plane = row->plane, .stride = row->stride,
        .second = row->second_output ? row->second : NULL, .second_stride = row->second_stride,
        .u = u, .v = v, .step_u = step_u, .step_v = step_v, .count = count,
        .output = row->output + x, .second_output = row->second_output ? row->second_output + x : NULL,
    };
    sample(&line);
    if (row->second_output && !row->second) memset(row->second_output + x, 255, (size_t)count);
}

static void sample_portable_line(const rtenc_sample_line_args *line) { sample_portable(line, 0); }

/// The spans of the row, each sampled by `sample`.
static inline void warp_row_with(const rtenc_warp_row_args *row, void (*sample)(const rtenc_sample_line_args *)) {
    if (row->start >= row->end) return;
    ptrdiff_t length = span_length(row), last = row->end - 1, x = row->start;
    double reciprocal = exact_reciprocal(row->divisor);
    int64_t u, v;
    fixed_point(row, reciprocal, x, &u, &v);
    while (1) {
        ptrdiff_t next = x + length < last ? x + length : last;
        // The last pixel (the end of the previous span, or a row of one pixel).
        if (next <= x) {
            warp_run(row, x, 1, u, v, 0, 0, sample);
            return;
        }
        int64_t next_u, next_v;
        fixed_point(row, reciprocal, next, &next_u, &next_v);
        // Truncated steps (C's / truncates towards zero, as Swift's): every point between stays between the ends.
        ptrdiff_t n = next - x;
        warp_run(row, x, n, u, v, (next_u - u) / n, (next_v - v) / n, sample);
        u = next_u;
        v = next_v;
        x = next;
    }
}

#ifdef RTENC_HAVE_AVX2
/// The AVX2 sampler for a run of the row, whose 32-bit fit was checked once for the whole row.
AVX2 static void sample_avx2_fitting(const rtenc_sample_line_args *line) {
    if (line->count < 8) {
        sample_portable(line, 0);
        return;
    }
    sample_avx2_blocks(line);
}

/// Every span end is clamped into [0, maximum_u] × [0, maximum_v], so the row fits the 32-bit lanes when those
/// corners do.
static int row_fits_32_bits(const rtenc_warp_row_args *row) {
    rtenc_sample_line_args corners = {
        .plane = row->plane, .stride = row->stride,
        .second = row->second_output ? row->second : NULL, .second_stride = row->second_stride,
        .u = 0, .v = 0, .step_u = row->maximum_u, .step_v = row->maximum_v, .count = 2,
    };
    return row->maximum_u >= 0 && row->maximum_v >= 0 && fits_32_bits(&corners);
}

/// fixed_point at four columns at once, for a row that fits the 32-bit lanes (row_fits_32_bits): the same double
/// operations in the same order, lane by lane (IEEE add, multiply and divide round alike in a vector), the clamp as
/// compares and blends that give 0 for a NaN as the scalar ternaries do, and the truncation to 32 bits exact because
/// every clamped value lies in [0, maximum] ⊂ [0, 2³¹).
AVX2 static inline void fixed_point4(const rtenc_warp_row_args *row, double reciprocal, __m256d position, __m128i *u,
                                     __m128i *v) {
    const __m256d zero = _mm256_setzero_pd();
    __m256d denominator = _mm256_add_pd(_mm256_set1_pd(row->d), _mm256_mul_pd(_mm256_set1_pd(row->step_d), position));
    __m256d scale = _mm256_div_pd(_mm256_set1_pd(65536), denominator);
    // isfinite(scale): |scale| < ∞, false for NaN (an ordered compare).
    __m256d magnitude = _mm256_andnot_pd(_mm256_set1_pd(-0.0), scale);
    __m256d finite = _mm256_cmp_pd(magnitude, _mm256_set1_pd(INFINITY), _CMP_LT_OQ);
    __m256d bias = _mm256_set1_pd(row->bias);
    __m256d fu = _mm256_add_pd(_mm256_mul_pd(_mm256_add_pd(_mm256_set1_pd(row->u),
                                                           _mm256_mul_pd(_mm256_set1_pd(row->step_u), position)),
                                             scale), bias);
    __m256d fv = _mm256_add_pd(_mm256_mul_pd(_mm256_add_pd(_mm256_set1_pd(row->v),
                                                           _mm256_mul_pd(_mm256_set1_pd(row->step_v), position)),
                                             scale), bias);
    if (reciprocal != 0) {
        fu = _mm256_mul_pd(fu, _mm256_set1_pd(reciprocal));
        fv = _mm256_mul_pd(fv, _mm256_set1_pd(reciprocal));
    } else {
        fu = _mm256_div_pd(fu, _mm256_set1_pd(row->divisor));
        fv = _mm256_div_pd(fv, _mm256_set1_pd(row->divisor));
    }
    // f > 0 ? (f < maximum ? f : maximum) : 0, and 0 where the scale is not finite.
    __m256d maximum_u = _mm256_set1_pd((double)row->maximum_u), maximum_v = _mm256_set1_pd((double)row->maximum_v);
    __m256d clamped_u = _mm256_blendv_pd(maximum_u, fu, _mm256_cmp_pd(fu, maximum_u, _CMP_LT_OQ));
    __m256d clamped_v = _mm256_blendv_pd(maximum_v, fv, _mm256_cmp_pd(fv, maximum_v, _CMP_LT_OQ));
    clamped_u = _mm256_and_pd(clamped_u, _mm256_and_pd(_mm256_cmp_pd(fu, zero, _CMP_GT_OQ), finite));
    clamped_v = _mm256_and_pd(clamped_v, _mm256_and_pd(_mm256_cmp_pd(fv, zero, _CMP_GT_OQ), finite));
    *u = _mm256_cvttpd_epi32(clamped_u);
    *v = _mm256_cvttpd_epi32(clamped_v);
}

/// The same spans as warp_row_with, each chunk of span ends computed first: their divisions do not wait for each
/// other nor for the samples between (in warp_row_with each division and the sampling after it form one chain;
/// perf: a third of the warp was that chain). The ends four at a time (fixed_point4), and the steps as double
/// quotients: for integers |a| < 2⁵³ and n ≥ 1 the double a / n truncates to C's a / n (rounding is monotonic and
/// every integer of that size is a double, so the rounded quotient cannot reach the next integer unless the exact
/// one is that integer), and here |a| < 2³¹ (perf: the two 64-bit integer divisions per span were a quarter of this
/// function).
AVX2 static void warp_row_avx2(const rtenc_warp_row_args *row) {
    if (!row_fits_32_bits(row)) {
        warp_row_with(row, sample_avx2);
        return;
    }
    if (row->start >= row->end) return;
    enum { chunk = 32 };
    ptrdiff_t length = span_length(row), last = row->end - 1;
    double reciprocal = exact_reciprocal(row->divisor);
    // Index 0 is the chunk's first end (the last one of the chunk before); up to `chunk` more, padded to a whole
    // vector with copies of the last (computed, never used).
    ptrdiff_t xs[chunk + 4];
    double positions[chunk + 4], lengths[chunk + 4];
    int32_t us[chunk + 8], vs[chunk + 8], steps_u[chunk + 4], steps_v[chunk + 4];
    // The columns also as doubles, by their own chain (exact: integers below 2⁵³), not converted one by one (each
    // conversion waited on the one before through its merged register: perf, a fifth of this function).
    const double length_double = (double)length, last_double = (double)last;
    xs[0] = row->start;
    positions[0] = (double)row->start;
    {
        int64_t u, v;
        fixed_point(row, reciprocal, xs[0], &u, &v);
        us[0] = (int32_t)u;
        vs[0] = (int32_t)v;
    }
    while (xs[0] < last) {
        int spans = 0;
        for (; spans < chunk && xs[spans] < last; spans++) {
            xs[spans + 1] = xs[spans] + length < last ? xs[spans] + length : last;
            double next = positions[spans] + length_double;
            positions[spans + 1] = next < last_double ? next : last_double;
            lengths[spans] = positions[spans + 1] - positions[spans];
        }
        for (int k = spans + 1; k < ((spans + 3) & ~3) + 1; k++) {
            positions[k] = positions[spans];
            lengths[k - 1] = 1;
        }
        for (int k = 1; k <= spans; k += 4) {
            __m128i u, v;
            fixed_point4(row, reciprocal, _mm256_loadu_pd(positions + k), &u, &v);
            _mm_storeu_si128((__m128i *)(us + k), u);
            _mm_storeu_si128((__m128i *)(vs + k), v);
        }
        for (int k = 0; k < spans; k += 4) {
            __m256d n = _mm256_loadu_pd(lengths + k);
            __m128i du = _mm_sub_epi32(_mm_loadu_si128((const __m128i *)(us + k + 1)),
                                       _mm_loadu_si128((const __m128i *)(us + k)));
            __m128i dv = _mm_sub_epi32(_mm_loadu_si128((const __m128i *)(vs + k + 1)),
                                       _mm_loadu_si128((const __m128i *)(vs + k)));
            _mm_storeu_si128((__m128i *)(steps_u + k), _mm256_cvttpd_epi32(_mm256_div_pd(_mm256_cvtepi32_pd(du), n)));
            _mm_storeu_si128((__m128i *)(steps_v + k), _mm256_cvttpd_epi32(_mm256_div_pd(_mm256_cvtepi32_pd(dv), n)));
        }
        for (int k = 0; k < spans; k++) {
            warp_run(row, xs[k], xs[k + 1] - xs[k], us[k], vs[k], steps_u[k], steps_v[k], sample_avx2_fitting);
        }
        xs[0] = xs[spans];
        positions[0] = positions[spans];
        us[0] = us[spans];
        vs[0] = vs[spans];
    }
    // The last pixel (the end of the last span, or a row of one pixel).
    warp_run(row, xs[0], 1, us[0], vs[0], 0, 0, sample_avx2_fitting);
}
#endif

void rtenc_warp_row(rtenc_kernel_path path, const rtenc_warp_row_args *row) {
#ifdef RTENC_HAVE_AVX2
    if (path == RTENC_KERNEL_AVX2 && rtenc_kernels_cpu_has_avx2()) {
        warp_row_avx2(row);
        return;
    }
#endif
    (void)path;
    warp_row_with(row, sample_portable_line);
}
