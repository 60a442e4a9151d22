#if canImport(Glibc)
import Glibc
#endif

extension String {
    /// printf-style formatting (vsnprintf, C locale) for numbers: what `String(format:)` did, without full
    /// Foundation (which would load ICU into every process linking it). Use %ld for Int and %f/%g for Double; there
    /// is no %@ (interpolate strings instead). `package`: for the report writers of this package (BitrateAdaptation's
    /// and the CLI's), not public API. It lives here, with the reports, rather than in Bitstream (which has no use for
    /// it) or MediaCore (which imports no C library).
    package init(cFormat format: String, _ arguments: any CVarArg...) {
        let length = withVaList(arguments) { vsnprintf(nil, 0, format, $0) }
        guard length > 0 else {
            self = ""
            return
        }
        var buffer = [CChar](repeating: 0, count: Int(length) + 1)
        _ = withVaList(arguments) { vsnprintf(&buffer, buffer.count, format, $0) }
        self = String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
