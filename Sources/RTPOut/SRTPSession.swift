import CSRTP
import Glibc
import MediaCore

/// SRTP and SRTCP (RFC 3711) over libsrtp2: the I/O edge's crypto, kept out of RTPOut's pure parts.
///
/// One session owns two libsrtp contexts: an outbound one for the packets we send (any SSRC: media and RTX) and an
/// inbound one for those we receive. libsrtp templates one direction per context, and replay state is per direction.
/// Both are freed by `deinit`, and only there. SDES (`init(configuration:)`) keys both from the one master key of
/// the `a=crypto` line; DTLS-SRTP (`init(outbound:inbound:)`) has a key per direction (RFC 5764 §4.2: the DTLS
/// client sends with the client key and receives with the server key, the server the other way round).
///
/// Every call works in place on the caller's buffer and allocates nothing. `protect` needs `maxRTPTrailer` (RTCP:
/// `maxRTCPTrailer`) writable bytes after the packet — libsrtp's documented contract, although the suites here
/// write only 10 or 4 (RTCP: 14). Buffers should be 4-byte aligned (libsrtp reads 32-bit words).
///
/// Not thread-safe (libsrtp contexts are not): its owner serializes the calls. `@unchecked Sendable` only so that
/// `RTPSender`'s and `RTPReceiver`'s mutex-guarded state can hold it; both call it under that lock alone.
public final class SRTPSession: @unchecked Sendable {
    /// Writable bytes `protect(rtp:length:)` needs after the packet (SRTP_MAX_TRAILER_LEN).
    public static let maxRTPTrailer = Int(SRTP_MAX_TRAILER_LEN)
    /// Writable bytes `protectRTCP(_:length:)` needs after the compound packet (SRTP_MAX_TRAILER_LEN + 4).
    public static let maxRTCPTrailer = Int(SRTP_MAX_TRAILER_LEN) + 4
    /// Default replay window in packets. It must reach back as far as a NACK retransmission can come: the sender's
    /// side re-protects packets from its 1024-packet history, the receiver's accepts them that late.
    public static let defaultReplayWindow = 1024
    /// libsrtp's bounds on the window (srtp_stream_init: 64 ≤ window < 0x8000).
    public static let replayWindowRange = 64 ... 0x7FFF

    public let suite: SRTPConfiguration.Suite
    private let outbound: srtp_t
    private let inbound: srtp_t

    /// SDES (RFC 4568): both directions keyed from the one master key and salt of the `a=crypto` line; what they
    /// send differs in SSRC, which keeps their keystreams apart (RFC 3711 §9.1).
    public convenience init(configuration: SRTPConfiguration, replayWindow: Int = defaultReplayWindow) throws(RTPError) {
        try self.init(outbound: configuration, inbound: configuration, replayWindow: replayWindow)
    }

    /// A key per direction, as DTLS-SRTP exports them (RFC 5764 §4.2): `outbound` protects what we send, `inbound`
    /// unprotects what we receive. Both must name the same suite (DTLS negotiates one protection profile).
    public init(outbound: SRTPConfiguration, inbound: SRTPConfiguration, replayWindow: Int = defaultReplayWindow) throws(RTPError) {
        guard outbound.suite == inbound.suite else {
            throw .make(.invalidValue, "SRTP suites differ by direction: \(outbound.suite.rawValue) out, \(inbound.suite.rawValue) in")
        }
        try Self.check(csrtp_init_once(), "srtp_init")
        let window = UInt(min(max(replayWindow, Self.replayWindowRange.lowerBound), Self.replayWindowRange.upperBound))
        let suite = outbound.suite
        let cSuite = suite == .aesCM128HMACSHA1_80 ? CSRTP_AES_CM_128_HMAC_SHA1_80 : CSRTP_AES_CM_128_HMAC_SHA1_32
        var sending: srtp_t?
        var receiving: srtp_t?
        // allow_repeat_tx: a plain NACK retransmission protects an index again; with the same key, index and
        // plaintext the result is the very same bytes, so no keystream is reused on different data.
        try outbound.masterKeyAndSalt.withUnsafeBufferPointer { key throws(RTPError) in
            try Self.check(csrtp_create(&sending, cSuite, CSRTP_OUTBOUND, key.baseAddress, window, 1), "srtp_create")
        }
        do throws(RTPError) {
            try inbound.masterKeyAndSalt.withUnsafeBufferPointer { key throws(RTPError) in
                try Self.check(csrtp_create(&receiving, cSuite, CSRTP_INBOUND, key.baseAddress, window, 0), "srtp_create")
            }
        } catch {
            if let sending { srtp_dealloc(sending) }
            throw error
        }
        guard let sending, let receiving else { throw RTPError(code: .srtp, reason: "srtp_create gave no context") }
        self.suite = suite
        self.outbound = sending
        self.inbound = receiving
    }

    deinit {
        srtp_dealloc(outbound)
        srtp_dealloc(inbound)
    }

    /// Encrypts and authenticates the RTP packet in `buffer[0 ..< length]`; returns the SRTP length (+ the tag).
    public func protect(rtp buffer: UnsafeMutableRawBufferPointer, length: Int) throws(RTPError) -> Int {
        try run(srtp_protect, outbound, buffer, length, room: Self.maxRTPTrailer, "srtp_protect")
    }

    /// Authenticates, checks for replay and decrypts the SRTP packet in `buffer[0 ..< length]`; returns the RTP
    /// length. Throws `.authenticationFailed` or `.replayed` for packets that must be dropped.
    public func unprotect(rtp buffer: UnsafeMutableRawBufferPointer, length: Int) throws(RTPError) -> Int {
        try run(srtp_unprotect, inbound, buffer, length, room: 0, "srtp_unprotect")
    }

    /// SRTCP (RFC 3711 §3.4): encrypts the compound packet, appends E flag + index and the 80-bit tag.
    public func protectRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(RTPError) -> Int {
        try run(srtp_protect_rtcp, outbound, buffer, length, room: Self.maxRTCPTrailer, "srtp_protect_rtcp")
    }

    /// Authenticates, checks for replay and decrypts an SRTCP packet; returns the RTCP length.
    public func unprotectRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(RTPError) -> Int {
        try run(srtp_unprotect_rtcp, inbound, buffer, length, room: 0, "srtp_unprotect_rtcp")
    }

    private func run(_ call: (srtp_t?, UnsafeMutableRawPointer?, UnsafeMutablePointer<Int32>?) -> srtp_err_status_t,
                     _ context: srtp_t, _ buffer: UnsafeMutableRawBufferPointer, _ length: Int, room: Int,
                     _ name: String) throws(RTPError) -> Int {
        guard length >= 0, length <= buffer.count - room, length <= Int(Int32.max) - room, let base = buffer.baseAddress else {
            throw .outputTooSmall(need: length + room, have: buffer.count)
        }
        var cLength = Int32(length)
        try Self.check(call(context, base, &cLength), name)
        return Int(cLength)
    }

    /// One chokepoint from libsrtp status to RTPError; the reason names the call and the status, never key bytes.
    private static func check(_ status: srtp_err_status_t, _ call: String) throws(RTPError) {
        switch status {
        case srtp_err_status_ok: return
        case srtp_err_status_auth_fail: throw RTPError(code: .authenticationFailed, reason: "\(call): authentication tag does not match")
        case srtp_err_status_replay_fail: throw RTPError(code: .replayed, reason: "\(call): packet index already seen")
        case srtp_err_status_replay_old: throw RTPError(code: .replayed, reason: "\(call): packet index older than the replay window")
        default: throw RTPError(code: .srtp, reason: "\(call) failed: \(statusName(status))")
        }
    }

    static func statusName(_ status: srtp_err_status_t) -> String {
        switch status {
        case srtp_err_status_bad_param: "bad parameter"
        case srtp_err_status_alloc_fail: "allocation failed"
        case srtp_err_status_init_fail: "initialisation failed"
        case srtp_err_status_no_ctx: "no context for the SSRC"
        case srtp_err_status_cipher_fail: "cipher failed"
        case srtp_err_status_key_expired: "key expired"
        case srtp_err_status_parse_err: "packet cannot be parsed"
        case srtp_err_status_bad_mki: "bad MKI"
        default: "status \(status.rawValue)"
        }
    }

    /// `count` bytes from the kernel's CSPRNG (getrandom(2)).
    static func randomBytes(_ count: Int) throws(RTPError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let status = bytes.withUnsafeMutableBytes { csrtp_random_bytes($0.baseAddress, $0.count) }
        guard status == 0 else { throw .system("getrandom", errno: errno) }
        return bytes
    }
}

extension ErrorCode where Owner == RTPError {
    /// An SRTP/SRTCP packet whose authentication tag does not match (forged, corrupted, or another key).
    public static var authenticationFailed: Self { Self("authenticationFailed") }
    /// An SRTP/SRTCP packet index already received, or older than the replay window (RFC 3711 §3.3.2).
    public static var replayed: Self { Self("replayed") }
    /// libsrtp failed for another reason; `reason` names the call and the status.
    public static var srtp: Self { Self("srtp") }
}
