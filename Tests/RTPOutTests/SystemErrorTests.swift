import Foundation
import TestSupport
import Testing

@testable import RTP
@testable import RTPOut

/// A failed system call reads as the call and what errno means (strerror), never as a bare number; the number stays
/// in `errno` for callers that act on it (the CLI names the option that picks another port for EADDRINUSE).
@Suite struct SystemErrorTests {
    @Test(arguments: [
        (EADDRINUSE, "bind 0.0.0.0:5004 failed: Address already in use"),
        (EACCES, "bind 0.0.0.0:5004 failed: Permission denied"),
        (EADDRNOTAVAIL, "bind 0.0.0.0:5004 failed: Cannot assign requested address"),
        (EMFILE, "bind 0.0.0.0:5004 failed: Too many open files"),
        (4095, "bind 0.0.0.0:5004 failed: Unknown error 4095"),
    ] as [(Int32, String)])
    func reasonIsStrerrorText(_ code: Int32, _ reason: String) {
        let error = RTPError.system("bind 0.0.0.0:5004", errno: code)
        #expect(error.code == .system)
        #expect(error.errno == code)
        #expect(error.reason == reason)
        #expect(!error.description.contains("errno"))
    }

    @Test func otherCodesCarryNoErrno() {
        #expect(RTPError.make(.invalidValue, "x").errno == nil)
    }

    @Test func aPortThatIsTakenSaysSo() throws {
        let first = try UDPSocket(bindTo: SocketAddress(host: "127.0.0.1", port: 0))
        let port = first.localAddress.port
        #expect {
            _ = try UDPSocket(bindTo: SocketAddress(host: "127.0.0.1", port: port))
        } throws: { error in
            guard let error = error as? RTPError else { return false }
            return error.code == .system && error.errno == EADDRINUSE
                && error.reason == "bind 127.0.0.1:\(port) failed: Address already in use"
        }
    }
}
