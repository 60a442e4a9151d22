import CCompositionKernels
import Glibc

/// Which implementation of the C kernels (CCompositionKernels) runs: both compute the same bytes; AVX2 is faster
/// where the CPU has it.
package enum KernelPath: Sendable, CaseIterable {
    case portable
    case avx2

    /// The path the engine takes: AVX2 when the CPU has it, decided once per process from CPUID, unless the
    /// environment sets `RTENC_KERNELS=portable` (to measure the fallback, or to rule the vector code out).
    package static let best: KernelPath = {
        if let value = getenv("RTENC_KERNELS"), String(cString: value) == "portable" { return .portable }
        return rtenc_kernels_cpu_has_avx2() != 0 ? .avx2 : .portable
    }()

    /// The paths this CPU runs (tests compare each against the Swift reference).
    package static var available: [KernelPath] {
        rtenc_kernels_cpu_has_avx2() != 0 ? [.portable, .avx2] : [.portable]
    }

    var c: rtenc_kernel_path { self == .avx2 ? RTENC_KERNEL_AVX2 : RTENC_KERNEL_PORTABLE }
}

/// The one layer over CCompositionKernels: the engine's kernels call C only through these.
enum NativeKernels {
    /// One pair of I420 rows of the alpha blend (`rtenc_blend_rows`): every pointer inside its plane for `count`
    /// luma columns of both rows and `count` / 2 chroma columns, which `OverlayKernels.blend` has checked.
    @inline(__always)
    static func blendRows(_ rows: rtenc_blend_rows_args, path: KernelPath) {
        withUnsafePointer(to: rows) { rtenc_blend_rows(path.c, $0) }
    }

    /// `count` bilinear samples along a line (`rtenc_sample_line`): every sample's four neighbours inside the plane,
    /// as `OverlayKernels.warp`'s fast path guarantees by clamping both ends of the line.
    @inline(__always)
    static func sampleLine(_ line: rtenc_sample_line_args, path: KernelPath) {
        withUnsafePointer(to: line) { rtenc_sample_line(path.c, $0) }
    }

    /// The interpolated spans of one warp row (`rtenc_warp_row`): the maximum coordinates those of the picture less
    /// a pixel, so every sample's neighbours are inside the plane, as `OverlayKernels.warp` passes them.
    @inline(__always)
    static func warpRow(_ row: rtenc_warp_row_args, path: KernelPath) {
        withUnsafePointer(to: row) { rtenc_warp_row(path.c, $0) }
    }
}
