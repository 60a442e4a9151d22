import Glibc

/// An IPv4 or IPv6 address and port, as the socket calls want it. Numeric addresses only (no DNS at this layer);
/// "localhost" is read as 127.0.0.1.
public struct SocketAddress: Sendable, Hashable, CustomStringConvertible {
    public enum Family: Sendable { case ipv4, ipv6 }

    /// 4 or 16 address bytes, network order.
    public let addressBytes: [UInt8]
    public let port: UInt16

    public var family: Family { addressBytes.count == 4 ? .ipv4 : .ipv6 }

    public init(host: String, port: UInt16) throws(RTPError) {
        let name = host == "localhost" ? "127.0.0.1" : host.trimmingBrackets
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, name, &v4) == 1 {
            addressBytes = withUnsafeBytes(of: v4) { Array($0) }
        } else if inet_pton(AF_INET6, name, &v6) == 1 {
            addressBytes = withUnsafeBytes(of: v6) { Array($0) }
        } else {
            throw .make(.invalidValue, "not a numeric IPv4/IPv6 address: \(host)")
        }
        self.port = port
    }

    init(addressBytes: [UInt8], port: UInt16) {
        self.addressBytes = addressBytes
        self.port = port
    }

    /// Same host, any port: how RTCP sources are matched (GStreamer sends RTCP from an ephemeral port).
    public func sameHost(as other: SocketAddress) -> Bool { addressBytes == other.addressBytes }

    public func withPort(_ port: UInt16) -> SocketAddress { SocketAddress(addressBytes: addressBytes, port: port) }

    public var host: String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        addressBytes.withUnsafeBytes { bytes in
            _ = inet_ntop(family == .ipv4 ? AF_INET : AF_INET6, bytes.baseAddress, &text, socklen_t(text.count))
        }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public var description: String { family == .ipv4 ? "\(host):\(port)" : "[\(host)]:\(port)" }

    /// Lends a `sockaddr` for this address to `body`.
    func withSockAddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        switch family {
        case .ipv4:
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            withUnsafeMutableBytes(of: &address.sin_addr) { $0.copyBytes(from: addressBytes) }
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        case .ipv6:
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            withUnsafeMutableBytes(of: &address.sin6_addr) { $0.copyBytes(from: addressBytes) }
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        }
    }

    /// Reads a `sockaddr_storage` filled by recvfrom/getsockname.
    init?(storage: sockaddr_storage) {
        var copy = storage
        switch Int32(storage.ss_family) {
        case AF_INET:
            let address = withUnsafeBytes(of: &copy) { $0.load(as: sockaddr_in.self) }
            self.init(addressBytes: withUnsafeBytes(of: address.sin_addr) { Array($0) }, port: UInt16(bigEndian: address.sin_port))
        case AF_INET6:
            let address = withUnsafeBytes(of: &copy) { $0.load(as: sockaddr_in6.self) }
            let bytes = withUnsafeBytes(of: address.sin6_addr) { Array($0) }
            // An IPv4-mapped IPv6 address (::ffff:a.b.c.d) is the IPv4 host.
            if bytes.prefix(12) == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF] {
                self.init(addressBytes: Array(bytes.suffix(4)), port: UInt16(bigEndian: address.sin6_port))
            } else {
                self.init(addressBytes: bytes, port: UInt16(bigEndian: address.sin6_port))
            }
        default:
            return nil
        }
    }
}

extension String {
    fileprivate var trimmingBrackets: String {
        hasPrefix("[") && hasSuffix("]") ? String(dropFirst().dropLast()) : self
    }
}
