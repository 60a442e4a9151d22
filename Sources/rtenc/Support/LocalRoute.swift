#if canImport(Glibc)
import Glibc
#endif
import RTPOut

/// The local address the kernel would send from to reach a host: a UDP socket is connected to it (which sends
/// nothing) and asked its name. `stream --whip` offers that address as its host candidate, so a WHIP server on
/// loopback gets a loopback candidate and one on the LAN the LAN address.
enum LocalRoute {
    static func sourceAddress(toward remote: SocketAddress, command: String) throws -> SocketAddress {
        let family = remote.family == .ipv4 ? AF_INET : AF_INET6
        let descriptor = socket(family, Int32(SOCK_DGRAM.rawValue), 0)
        guard descriptor >= 0 else { throw CLIError("\(command): socket: \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var storage = sockaddr_storage()
        let length: socklen_t
        if remote.family == .ipv4 {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = remote.port.bigEndian
            withUnsafeMutableBytes(of: &address.sin_addr) { $0.copyBytes(from: remote.addressBytes) }
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: address, as: sockaddr_in.self) }
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
        } else {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = remote.port.bigEndian
            withUnsafeMutableBytes(of: &address.sin6_addr) { $0.copyBytes(from: remote.addressBytes) }
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: address, as: sockaddr_in6.self) }
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        }
        let connected = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, length) }
        }
        guard connected == 0 else {
            throw CLIError("\(command): no route to \(remote.host): \(String(cString: strerror(errno)))")
        }
        var local = sockaddr_storage()
        var localLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &localLength) }
        }
        guard named == 0 else { throw CLIError("\(command): getsockname: \(String(cString: strerror(errno)))") }
        var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        let status = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getnameinfo($0, localLength, &text, socklen_t(text.count), nil, 0, NI_NUMERICHOST)
            }
        }
        guard status == 0 else { throw CLIError("\(command): getnameinfo: \(String(cString: gai_strerror(status)))") }
        let host = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        do {
            return try SocketAddress(host: host.split(separator: "%").first.map(String.init) ?? host, port: 0)
        } catch {
            throw CLIError("\(command): local address \(host): \(error)")
        }
    }
}
