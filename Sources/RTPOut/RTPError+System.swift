#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension RTPError {
    /// "bind 0.0.0.0:5004 failed: Address already in use": strerror's text, never a bare number, for every errno.
    @inline(never)
    package static func system(_ call: String, errno code: Int32, file: String = #fileID, line: UInt = #line) -> Self {
        .init(code: .system, reason: "\(call) failed: \(String(cString: strerror(code)))", errno: code, file: file, line: line)
    }
}
