// The composition engine's hottest loops in C, each twice: portable (plain C the compiler vectorises for the
// baseline ISA) and AVX2 (compiled per function with __attribute__((target("avx2"))), so the package still builds
// for baseline x86-64). Swift has no per-function target attribute; this target is the only place that knows about
// CPU features. Composition calls it through one layer (NativeKernels.swift), which picks the path once.
//
// Both paths compute exactly the same bytes as each other (CompositionTests: NativeKernelTests compares them, and
// the engine's Swift reference, on case tables and on seeded random pictures).
#ifndef CCOMPOSITIONKERNELS_H
#define CCOMPOSITIONKERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Which implementation a call runs.
typedef enum rtenc_kernel_path {
    RTENC_KERNEL_PORTABLE = 0,
    /// Runs the portable code instead when the CPU has no AVX2 (so a forced path can never fault).
    RTENC_KERNEL_AVX2 = 1,
} rtenc_kernel_path;

/// 1 when this CPU runs AVX2 (CPUID, read once by the compiler runtime), else 0; always 0 off x86.
int rtenc_kernels_cpu_has_avx2(void);

/// One pair of I420 rows of an alpha blend: for each of `count` luma columns (even) of both rows,
/// out = (canvas·(255 − w) + picture·w + 128)·257 >> 16 (ffmpeg's FAST_DIV255 of the straight-alpha mix) with w
/// from `weight_top` / `weight_bottom`; for each of the `count` / 2 chroma columns, Cb and Cr the same with w the
/// mean of the 2×2 luma weights it covers, truncated. Rows may not overlap each other.
typedef struct rtenc_blend_rows_args {
    uint8_t *canvas_luma;              ///< the top row; the bottom one is canvas_luma + canvas_luma_stride
    ptrdiff_t canvas_luma_stride;
    const uint8_t *picture_luma;       ///< the top row; the bottom one is picture_luma + picture_luma_stride
    ptrdiff_t picture_luma_stride;
    const uint8_t *weight_top;
    const uint8_t *weight_bottom;
    uint8_t *canvas_cb;
    uint8_t *canvas_cr;
    const uint8_t *picture_cb;
    const uint8_t *picture_cr;
    ptrdiff_t count;
} rtenc_blend_rows_args;

void rtenc_blend_rows(rtenc_kernel_path path, const rtenc_blend_rows_args *rows);

/// A run of bilinear samples of a plane along a line: sample i (0 ≤ i < count) is at 16.16 coordinates
/// (u + i·step_u, v + i·step_v), bilinear between the four neighbours with 8-bit weights
/// ((256 − fu)(256 − fv)·p00 + … + 32768) >> 16, fu and fv the coordinates' bits 8–15. Every sample's four
/// neighbours must lie inside the plane: 0 ≤ u >> 16 ≤ width − 2 and 0 ≤ v >> 16 ≤ height − 2 at both ends of
/// the run (which bounds every point between), and the plane at least stride·(height − 1) + width bytes.
/// `second` (optional) is another plane sampled at the same points into `second_output` (the overlay's alpha, or
/// Cr alongside Cb).
typedef struct rtenc_sample_line_args {
    const uint8_t *plane;
    ptrdiff_t stride;
    const uint8_t *second;             ///< NULL: none
    ptrdiff_t second_stride;
    int64_t u;
    int64_t v;
    int64_t step_u;
    int64_t step_v;
    ptrdiff_t count;
    uint8_t *output;
    uint8_t *second_output;
} rtenc_sample_line_args;

void rtenc_sample_line(rtenc_kernel_path path, const rtenc_sample_line_args *line);

/// The interpolated part of one row of the corner-pin warp (OverlayKernels+Warp.swift keeps the rest of the row and
/// describes the method): the projective map of pixel x of the row is ((u + x·step_u) / (d + x·step_d), (v + x·step_v)
/// / (d + x·step_d)) in picture pixels. Columns [start, end) are cut into spans of at most `maximum_span` pixels (the
/// length L = min(maximum_span, max(2, √(1 / (128·r·|f′|)))) for 1/512 pixel of error from the map's curvature at the
/// worse end, rounded down to a multiple of 8 from 8 up); at each span end the map is evaluated
/// exactly, in 16.16 fixed point (·65 536, + bias, ÷ divisor, clamped to [0, maximum_u] × [0, maximum_v]), and the
/// samples between are `rtenc_sample_line` runs with truncated steps — so every read lies inside the plane when
/// maximum_u = ((w − 1) << 16) − 1 and maximum_v = ((h − 1) << 16) − 1. Sample x is written to output[x] (and the
/// second plane's to second_output[x]; with `second_output` but no `second`, 255 there: an opaque picture's
/// coverage). Double arithmetic in the order the Swift reference uses (no contraction into fused multiply-adds), so
/// the result is bit-exact with it on every path.
typedef struct rtenc_warp_row_args {
    double u;
    double v;
    double d;
    double step_u;
    double step_v;
    double step_d;
    ptrdiff_t start;
    ptrdiff_t end;
    ptrdiff_t maximum_span;
    double bias;
    double divisor;
    int64_t maximum_u;
    int64_t maximum_v;
    const uint8_t *plane;
    ptrdiff_t stride;
    const uint8_t *second;             ///< NULL: none
    ptrdiff_t second_stride;
    uint8_t *output;
    uint8_t *second_output;            ///< NULL: none
} rtenc_warp_row_args;

void rtenc_warp_row(rtenc_kernel_path path, const rtenc_warp_row_args *row);

#ifdef __cplusplus
}
#endif

#endif
