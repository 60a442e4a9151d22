#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials

// The few things the CLI took from full Foundation, done with FoundationEssentials, the standard library and libc.
// Full Foundation loads libFoundation, libFoundationInternationalization and ICU's 38 MB library at start-up (~6 MiB
// of resident memory in every run); swift-argument-parser needs only FoundationEssentials.

/// Standard output and standard error as plain write(2) calls: unbuffered, as FileHandle's were, so a line is out
/// before the next packet leaves.
struct Console {
    static let standardOutput = Console(descriptor: STDOUT_FILENO)
    static let standardError = Console(descriptor: STDERR_FILENO)

    let descriptor: Int32

    func write(_ text: String) {
        write(text.utf8)
    }

    /// Writes everything; a failure (stdout or stderr gone, a closed pipe) is ignored, as FileHandle's was.
    func write(_ bytes: some Sequence<UInt8>) {
        _ = writeAll(bytes)
    }

    /// Writes everything, retrying short writes and EINTR; false (errno set) when the descriptor refuses.
    func writeAll(_ bytes: some Sequence<UInt8>) -> Bool {
        let bytes = Array(bytes)
        return bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let count = Glibc.write(descriptor, raw.baseAddress.map { $0 + offset }, raw.count - offset)
                if count < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += count
            }
            return true
        }
    }
}

extension String {
    /// Cut or padded with spaces to exactly `length` characters (Foundation's `padding(toLength:withPad:" "…)`).
    func paddingWithSpaces(toLength length: Int) -> String {
        count >= length ? String(prefix(length)) : self + String(repeating: " ", count: length - count)
    }
}

extension StringProtocol {
    /// Without leading and trailing blanks: tab and the Unicode space separators (Foundation's
    /// `CharacterSet.whitespaces`; newlines are kept).
    func trimmingWhitespace() -> String {
        func isBlank(_ scalar: Unicode.Scalar) -> Bool {
            scalar == "\t" || scalar.properties.generalCategory == .spaceSeparator
        }
        let scalars = String(self).unicodeScalars
        guard let first = scalars.firstIndex(where: { !isBlank($0) }),
              let last = scalars.lastIndex(where: { !isBlank($0) }) else { return "" }
        return String(Substring(scalars[first...last]))
    }
}

/// A file error in a few words: the system's reason ("No such file or directory") when FoundationEssentials
/// carries one, else the error itself.
func fileErrorText(_ error: any Error) -> String {
    if let cocoa = error as? CocoaError, let posix = cocoa.userInfo["NSUnderlyingError"] as? POSIXError {
        return String(cString: strerror(posix.code.rawValue))
    }
    return "\(error)"
}
