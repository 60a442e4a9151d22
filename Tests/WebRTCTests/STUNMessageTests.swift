import Testing
import WebRTC

@Suite struct STUNMessageTests {
    static let id = STUNTransactionID(bytes: Array(1...12))!
    static let key = STUNMessage.shortTermKey(password: "abcdefghijklmnopqrstuvwx")

    // MARK: - Message type

    /// RFC 8489 §5's interleaving, and the values every STUN stack uses.
    static let types: [(type: STUNMessageType, wire: UInt16)] = [
        (.bindingRequest, 0x0001), (.bindingIndication, 0x0011), (.bindingSuccess, 0x0101), (.bindingError, 0x0111),
        (STUNMessageType(method: STUNMethod(rawValue: 0x003), messageClass: .request), 0x0003),  // TURN Allocate
        (STUNMessageType(method: STUNMethod(rawValue: 0xFFF), messageClass: .errorResponse), 0x3FFF),
        (STUNMessageType(method: STUNMethod(rawValue: 0x080), messageClass: .request), 0x0200),
    ]

    @Test(arguments: types)
    func messageType(_ c: (type: STUNMessageType, wire: UInt16)) {
        let (type, wire) = c
        #expect(type.wireValue == wire)
        #expect(STUNMessageType(wireValue: wire) == type)
    }

    // MARK: - Round trips

    static let roundTrips: [(attributes: [STUNAttribute], why: String)] = [
        ([], "no attributes"),
        ([.username("abcd:efgh"), .priority(0x6e7f_1eff), .iceControlling(tieBreaker: 0x0102_0304_0506_0708), .useCandidate],
         "an ICE check"),
        ([.iceControlled(tieBreaker: .max)], "ICE-CONTROLLED"),
        ([.xorMappedAddress(address("127.0.0.1:8189"))], "XOR-MAPPED-ADDRESS, IPv4"),
        ([.xorMappedAddress(address("[::1]:5004"))], "XOR-MAPPED-ADDRESS, IPv6"),
        ([.mappedAddress(address("[fe80::1:2]:65535"))], "MAPPED-ADDRESS, IPv6"),
        ([.errorCode(.roleConflict)], "487"),
        ([.errorCode(.unknownAttribute), .unknownAttributes([.nonce, .realm, STUNAttributeType(rawValue: 0x7777)])], "420"),
        ([.errorCode(STUNErrorResponseCode(code: 300, reason: "")), .software("rtenc")], "300, empty reason, SOFTWARE"),
        ([.other(type: STUNAttributeType(rawValue: 0xC057), value: [0, 1, 0, 10])], "GOOG-NETWORK-INFO, kept"),
        ([.other(type: .realm, value: Array("a.b".utf8)), .username("ü")], "odd lengths, padded"),
    ]

    @Test(arguments: roundTrips, [(nil, false), (key, false), (nil, true), (key, true)] as [([UInt8]?, Bool)])
    func roundTrip(_ c: (attributes: [STUNAttribute], why: String), security: ([UInt8]?, Bool)) throws {
        let message = STUNMessage(type: .bindingSuccess, transactionID: Self.id, attributes: c.attributes)
        let bytes = try message.serialized(integrityKey: security.0, fingerprint: security.1)
        #expect(bytes.count % 4 == 0)
        #expect(Int(bytes[2]) << 8 | Int(bytes[3]) == bytes.count - 20, "the length field counts everything after the header")
        let received = try STUNReceivedMessage(parsing: bytes[...])
        #expect(received.message == message, "\(c.why)")
        #expect(received.hasFingerprint == security.1)
        #expect((received.messageIntegrity != nil) == (security.0 != nil))
        if let key = security.0 {
            #expect(received.hasValidIntegrity(key: key))
            #expect(!received.hasValidIntegrity(key: key + [0x41]))
        } else {
            #expect(!received.hasValidIntegrity(key: Self.key), "no MESSAGE-INTEGRITY is never valid")
        }
    }

    // MARK: - Integrity and fingerprint

    @Test func tamperingBreaksIntegrity() throws {
        let message = STUNMessage(type: .bindingRequest, transactionID: Self.id, attributes: [.username("abcd:efgh"), .priority(1)])
        let bytes = try message.serialized(integrityKey: Self.key)
        for index in 0..<(bytes.count - 24) where index != 2 && index != 3 {
            var tampered = bytes
            tampered[index] ^= 0x01
            // The parse may refuse the flipped byte (cookie, type bits); if it parses, the HMAC must not verify.
            if let received = try? STUNReceivedMessage(parsing: tampered[...]) {
                #expect(!received.hasValidIntegrity(key: Self.key), "byte \(index) flipped")
            }
        }
    }

    @Test func fingerprintChecked() throws {
        let message = STUNMessage(type: .bindingRequest, transactionID: Self.id, attributes: [.username("abcd:efgh")])
        var bytes = try message.serialized(fingerprint: true)
        bytes[bytes.count - 1] ^= 0x80
        #expect { try STUNReceivedMessage(parsing: bytes[...]) } throws: { ($0 as? WebRTCError)?.code == .fingerprintMismatch }
    }

    /// RFC 8489 §14.5: attributes after MESSAGE-INTEGRITY (but FINGERPRINT) are ignored, and do not enter the HMAC.
    @Test func attributesAfterIntegrityIgnored() throws {
        let message = STUNMessage(type: .bindingRequest, transactionID: Self.id, attributes: [.username("abcd:efgh")])
        var bytes = try message.serialized(integrityKey: Self.key)
        bytes += [0x00, 0x25, 0x00, 0x00]  // USE-CANDIDATE, after MESSAGE-INTEGRITY
        bytes[3] += 4
        let received = try STUNReceivedMessage(parsing: bytes[...])
        #expect(received.message.attributes == [.username("abcd:efgh")])
        #expect(!received.message.useCandidate)
        #expect(received.hasValidIntegrity(key: Self.key))
    }

    /// What the parser would refuse, the serializer refuses too.
    @Test(arguments: [
        (STUNAttribute.errorCode(STUNErrorResponseCode(code: 700, reason: "")), WebRTCError.Code.invalidValue),
        (.errorCode(STUNErrorResponseCode(code: 299, reason: "")), .invalidValue),
        (.errorCode(STUNErrorResponseCode(code: -400, reason: "")), .invalidValue),
        (.errorCode(STUNErrorResponseCode(code: 400, reason: String(repeating: "x", count: 764))), .fieldOverflow),
        (.username(String(repeating: "u", count: 513)), .fieldOverflow),
        (.software(String(repeating: "s", count: 764)), .fieldOverflow),
        (.other(type: .nonce, value: [UInt8](repeating: 0, count: 65_536)), .fieldOverflow),
    ] as [(STUNAttribute, WebRTCError.Code)])
    func unwritable(_ attribute: STUNAttribute, code: WebRTCError.Code) {
        let message = STUNMessage(type: .bindingRequest, transactionID: Self.id, attributes: [attribute])
        #expect { try message.serialized() } throws: { ($0 as? WebRTCError)?.code == code }
    }

    @Test func messageTooLong() {
        let big = STUNAttribute.other(type: .nonce, value: [UInt8](repeating: 0, count: 40_000))
        let message = STUNMessage(type: .bindingRequest, transactionID: Self.id, attributes: [big, big])
        #expect { try message.serialized() } throws: { ($0 as? WebRTCError)?.code == .fieldOverflow }
        #expect(throws: Never.self) { try STUNMessage(type: .bindingRequest, transactionID: Self.id, attributes: [big]).serialized() }
    }

    // MARK: - Malformed input

    /// PRIORITY, a correct FINGERPRINT (the length field counting what follows), then USE-CANDIDATE.
    static let attributeAfterFingerprint: [UInt8] = {
        var bytes = rawSTUN(attributes: [(0x0024, [0, 0, 0, 7]), (0x8028, [0, 0, 0, 0]), (0x0025, [])])
        let crc = STUNSoftwareCrypto().crc32(bytes[..<28]) ^ 0x5354_554E
        bytes[32..<36] = [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
        return bytes
    }()

    static let malformed: [(bytes: [UInt8], code: WebRTCError.Code, why: String)] = [
        ([], .truncated, "empty"),
        (Array(rawSTUN(attributes: []).prefix(19)), .truncated, "19 bytes of header"),
        ([0x80] + rawSTUN(attributes: []).dropFirst(), .invalidValue, "top bits set (RTP's first byte)"),
        (rawSTUN(cookie: 0x1234_5678, attributes: []), .notSTUN, "no magic cookie (RFC 3489)"),
        (rawSTUN(attributes: [], length: 2) + [0, 0], .invalidValue, "length not a multiple of 4"),
        (rawSTUN(attributes: [], length: 4), .truncated, "length beyond the datagram"),
        (rawSTUN(attributes: []) + [0, 0, 0, 0], .trailingData, "bytes after the message"),
        (rawSTUN(attributes: [], length: 8) + [0x00, 0x24, 0x00, 0x08, 0, 0, 0, 1], .truncated, "attribute value cut"),
        (rawSTUN(attributes: [(0x0024, [0, 0, 1])]), .invalidValue, "PRIORITY of 3 bytes"),
        (rawSTUN(attributes: [(0x0025, [1])]), .invalidValue, "USE-CANDIDATE with a value"),
        (rawSTUN(attributes: [(0x802A, [0, 0, 0, 1])]), .invalidValue, "ICE-CONTROLLING of 4 bytes"),
        (rawSTUN(attributes: [(0x0020, [0, 3, 0, 1, 1, 2, 3, 4])]), .invalidValue, "XOR-MAPPED-ADDRESS family 3"),
        (rawSTUN(attributes: [(0x0020, [0, 1, 0, 1, 1, 2, 3, 4, 5, 6, 7, 8])]), .invalidValue, "IPv4 address of 8 bytes"),
        (rawSTUN(attributes: [(0x0020, [0, 2, 0, 1, 1, 2, 3, 4])]), .invalidValue, "IPv6 address of 4 bytes"),
        (rawSTUN(attributes: [(0x0001, [0, 1])]), .invalidValue, "MAPPED-ADDRESS of 2 bytes"),
        (rawSTUN(attributes: [(0x0009, [0, 0, 7, 0])]), .invalidValue, "ERROR-CODE class 7"),
        (rawSTUN(attributes: [(0x0009, [0, 0, 4, 100])]), .invalidValue, "ERROR-CODE number 100"),
        (rawSTUN(attributes: [(0x0009, [0, 0, 4])]), .invalidValue, "ERROR-CODE of 3 bytes"),
        (rawSTUN(attributes: [(0x000A, [0, 1, 0])]), .invalidValue, "UNKNOWN-ATTRIBUTES of odd length"),
        (rawSTUN(attributes: [(0x0006, [0x61, 0xff, 0x62])]), .invalidValue, "USERNAME not UTF-8"),
        (rawSTUN(attributes: [(0x0006, [UInt8](repeating: 0x61, count: 513))]), .invalidValue, "USERNAME of 513 bytes"),
        (rawSTUN(attributes: [(0x0008, [UInt8](repeating: 0, count: 19))]), .invalidValue, "MESSAGE-INTEGRITY of 19 bytes"),
        (rawSTUN(attributes: [(0x8028, [0, 0])]), .invalidValue, "FINGERPRINT of 2 bytes"),
        (rawSTUN(attributes: [(0x8028, [0, 0, 0, 0])]), .fingerprintMismatch, "FINGERPRINT of zeros"),
        (attributeAfterFingerprint, .invalidValue, "an attribute after FINGERPRINT"),
        (rawSTUN(attributes: [(UInt16, [UInt8])](repeating: (0x8022, []), count: 65)), .limitExceeded, "65 attributes"),
    ]

    @Test(arguments: malformed)
    func refused(_ c: (bytes: [UInt8], code: WebRTCError.Code, why: String)) {
        do {
            let message = try STUNReceivedMessage(parsing: c.bytes[...]).message
            Issue.record("\(c.why): parsed as \(message)")
        } catch {
            #expect(error.code == c.code, "\(c.why): \(error)")
        }
    }

    /// Lenient where peers are: unknown attributes of either range are kept, a SOFTWARE that is not UTF-8 is kept raw,
    /// padding need not be zero, duplicates are allowed (the first counts), 64 attributes are fine.
    @Test func lenient() throws {
        let bytes = rawSTUN(attributes: [
            (0x8022, [0xff, 0xfe]), (0x7F00, [1]), (0xC057, [0, 1, 0, 10]), (0x0024, [0, 0, 0, 9]), (0x0024, [0, 0, 0, 8]),
        ])
        let message = try STUNReceivedMessage(parsing: bytes[...]).message
        #expect(message.attributes.count == 5)
        #expect(message.first(.software) == .other(type: .software, value: [0xff, 0xfe]))
        #expect(message.priority == 9)
        #expect(message.unknownComprehensionRequired == [STUNAttributeType(rawValue: 0x7F00)])

        var spaces = rawSTUN(attributes: [(0x0006, [0x61])])
        spaces[25...] = [0x20, 0x20, 0x20]
        #expect(try STUNReceivedMessage(parsing: spaces[...]).message.username == "a")

        let many = rawSTUN(attributes: [(UInt16, [UInt8])](repeating: (0x8022, []), count: 64))
        #expect(try STUNReceivedMessage(parsing: many[...]).message.attributes.count == 64)
    }
}
