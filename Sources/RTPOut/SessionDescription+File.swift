import Glibc

extension SessionDescription {
    /// Writes the SDP to `path` atomically: into `path.partial` (created fresh, O_EXCL), then renamed over `path`,
    /// so a player polling for the file never reads half of it. Mode 0600 when it carries an SRTP key (`a=crypto`:
    /// the file is as secret as the key), 0644 otherwise. The edge of the module: the description itself is pure.
    /// - Throws: `.system` with the failing call and errno; nothing is left behind at `path.partial`.
    public func write(toFile path: String) throws(RTPError) {
        let temporary = path + ".partial"
        unlink(temporary)  // left over from a killed run; O_EXCL below must create a fresh file
        let mode: mode_t = srtp == nil ? 0o644 : 0o600
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw .system("open(\(temporary))", errno: errno) }
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else {
                let code = written < 0 ? errno : EIO
                close(fd)
                unlink(temporary)
                throw .system("write(\(temporary))", errno: code)
            }
            offset += written
        }
        guard close(fd) == 0 else {
            let code = errno
            unlink(temporary)
            throw .system("close(\(temporary))", errno: code)
        }
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw .system("rename(\(temporary), \(path))", errno: code)
        }
    }
}
