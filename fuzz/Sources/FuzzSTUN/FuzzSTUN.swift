// STUN (RFC 8489) parse, and both ICE agents fed the input as a datagram. The first byte picks what the rest is:
// bit 0 set, a STUN datagram as it arrived; clear, the rest is signed and fingerprinted as a Binding request for the
// lite agent first (USERNAME and MESSAGE-INTEGRITY right), so the fuzzer reaches the agents' logic past the HMAC.
//
// Properties: a parsed message serializes and parses back to the same message; whatever an agent answers is a
// STUN message that parses, with this transaction ID, and with MESSAGE-INTEGRITY under the local password when it
// says success.
import FuzzSupport
import MediaCore
import WebRTC

let local = try! ICECredentials(ufrag: "rtnc", pwd: "Local+password/0123456789")
let remote = try! ICECredentials(ufrag: "brws", pwd: "Remote+password/0123456789")
let localKey = STUNMessage.shortTermKey(password: local.pwd)
let source = TransportAddress(ip: .v4(0xC000_0207), port: 50001)
let me = TransportAddress(ip: .v4(0x0A00_0001), port: 5000)

struct Fixed: RandomNumberGenerator, Sendable {
    var state: UInt64 = 1
    mutating func next() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state
    }
}

/// The agents as they stand before the input arrives, made once: each run starts from a copy (they are values), which
/// keeps the first check's HMAC out of every execution.
let liteTemplate = ICELiteAgent(configuration: .init(local: local, remoteUfrag: remote.ufrag), startedAt: .zero)
let controllingTemplate: ICEControllingAgent = {
    var agent = ICEControllingAgent(
        configuration: .init(local: local, remote: remote, localAddresses: [me],
                             remoteCandidates: [try! ICECandidate(parsing: "candidate:1 1 udp 2130706431 192.0.2.7 50001 typ host")]),
        startedAt: .zero, random: Fixed())
    while agent.pollTransmit() != nil {}
    return agent
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSTUN(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    var input = FuzzInput(fuzzBytes(data, size)[...])
    let control = input.byte()
    var datagram = Array(input.rest())
    if control & 1 == 0 {
        // The rest as attributes of a signed request: TLVs read from the input, then MESSAGE-INTEGRITY + FINGERPRINT.
        var attributes: [STUNAttribute] = [.username("rtnc:brws")]
        var rest = FuzzInput(datagram[...])
        while !rest.isEmpty, attributes.count < 16 {
            let type = STUNAttributeType(rawValue: rest.uint16())
            let value = rest.take(Int(rest.byte() % 40))
            if let attribute = try? STUNReceivedMessage(parsing: rawAttribute(type, Array(value))[...]).message.attributes.first {
                attributes.append(attribute)
            }
        }
        let message = STUNMessage(
            type: STUNMessageType(wireValue: control & 2 == 0 ? 0x0001 : UInt16(control) << 4),
            transactionID: STUNTransactionID(bytes: [UInt8](repeating: control, count: 12))!, attributes: attributes)
        guard let bytes = try? message.serialized(integrityKey: control & 4 == 0 ? localKey : nil, fingerprint: true) else { return 0 }
        datagram = bytes
    }

    if let received = try? STUNReceivedMessage(parsing: datagram[...]) {
        let message = received.message
        check(message.attributes.count <= STUNReceivedMessage.maxAttributes, "\(message.attributes.count) attributes")
        if let again = try? message.serialized(integrityKey: localKey, fingerprint: true) {
            let reparsed = try? STUNReceivedMessage(parsing: again[...])
            check(reparsed?.message == message, "serialize → parse changed \(message)")
            check(reparsed?.hasValidIntegrity(key: localKey) == true, "our own MESSAGE-INTEGRITY does not verify")
        }
    }

    var lite = liteTemplate
    if let response = lite.handle(stun: datagram[...], from: source, at: Instant(nanoseconds: 1_000)) {
        checkResponse(response, to: datagram)
    }
    _ = lite.pollEvent()

    var controlling = controllingTemplate
    controlling.handle(stun: datagram[...], from: source, to: me, at: Instant(nanoseconds: 1_000))
    while let transmit = controlling.pollTransmit() {
        check((try? STUNReceivedMessage(parsing: transmit.datagram[...])) != nil, "the controlling agent sent a bad message")
    }
    if let next = controlling.nextTimeout() { controlling.handleTimeout(at: next) }
    while controlling.pollEvent() != nil {}
    return 0
}

/// One attribute wrapped in a minimal message, to read it with the real parser.
func rawAttribute(_ type: STUNAttributeType, _ value: [UInt8]) -> [UInt8] {
    let padded = value + [UInt8](repeating: 0, count: (4 - value.count % 4) % 4)
    let length = 4 + padded.count
    return [0x00, 0x01, UInt8(length >> 8), UInt8(length & 0xFF), 0x21, 0x12, 0xA4, 0x42] + [UInt8](repeating: 0, count: 12)
        + [UInt8(type.rawValue >> 8), UInt8(type.rawValue & 0xFF), UInt8(value.count >> 8), UInt8(value.count & 0xFF)] + padded
}

func checkResponse(_ response: [UInt8], to request: [UInt8]) {
    guard let parsed = try? STUNReceivedMessage(parsing: response[...]) else {
        check(false, "the lite agent answered with a message that does not parse")
        return
    }
    check(parsed.hasFingerprint, "a response without FINGERPRINT")
    check(Array(request[8..<20]) == parsed.message.transactionID.bytes, "the response's transaction ID differs")
    if parsed.message.type == .bindingSuccess {
        check(parsed.hasValidIntegrity(key: localKey), "a success response without our MESSAGE-INTEGRITY")
        check(parsed.message.xorMappedAddress == source, "XOR-MAPPED-ADDRESS is not the source")
    }
}
