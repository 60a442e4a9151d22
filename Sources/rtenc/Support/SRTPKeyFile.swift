#if canImport(Glibc)
    import Glibc
#endif

/// `--srtp-key-file`: the SRTP master key and salt (base64 of 30 bytes) from a file, so the key never appears in the
/// process list the way `--srtp-key` does. Like ssh with its private keys, a file group or others may read, or one
/// another user owns, is refused: a key anyone else on the machine can read or replace protects nothing. Errors name the file, never its content.
enum SRTPKeyFile {
    /// Largest file accepted: 40 characters of base64 plus a newline, with room for comments-free whitespace.
    static let maxBytes = 1024

    static func read(_ path: String, command: String) throws -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw CLIError("\(command): cannot open --srtp-key-file \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw CLIError("\(command): --srtp-key-file \(path) is not a regular file")
        }
        guard status.st_uid == geteuid() else {
            throw CLIError("\(command): --srtp-key-file \(path) belongs to another user (uid \(status.st_uid)); it must be yours")
        }
        guard status.st_mode & 0o077 == 0 else {
            throw CLIError("\(command): --srtp-key-file \(path) can be read by group or others (mode "
                + "\(String(status.st_mode & 0o777, radix: 8))): chmod 600 it")
        }
        guard status.st_size <= maxBytes else {
            throw CLIError("\(command): --srtp-key-file \(path) is \(status.st_size) bytes; a key is 40 characters")
        }
        var bytes = [UInt8](repeating: 0, count: maxBytes + 1)
        var count = 0
        while count <= maxBytes {
            let got = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + count, maxBytes + 1 - count) }
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else {
                throw CLIError("\(command): cannot read --srtp-key-file \(path): \(String(cString: strerror(errno)))")
            }
            if got == 0 { break }
            count += got
        }
        let text = String(decoding: bytes[..<min(count, maxBytes)], as: UTF8.self)
        return String(text.filter { !$0.isWhitespace })
    }
}
