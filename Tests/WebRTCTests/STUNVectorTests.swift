import Testing
import WebRTC

/// RFC 5769's test vectors, byte for byte: parsed, authenticated, and rebuilt from their attributes.
@Suite struct STUNVectorTests {
    static let password = "VOkJxbRl1RmTxUk/WvJxBt"
    static let transactionID: STUNTransactionID = STUNTransactionID(bytes: hex("b7e7a701 bc34d686 fa87dfae"))!

    /// §2.1 Sample Request.
    static let request: [UInt8] = hex("""
        00010058 2112a442 b7e7a701 bc34d686 fa87dfae
        80220010 5354554e 20746573 7420636c 69656e74
        00240004 6e0001ff
        80290008 932ff9b1 51263b36
        00060009 6576746a 3a683676 59202020
        00080014 9aeaa70c bfd8cb56 781ef2b5 b2d3f249 c1b571a2
        80280004 e57a3bcf
        """)
    // SOFTWARE "STUN test client"; PRIORITY; ICE-CONTROLLED tie-breaker; USERNAME "evtj:h6vY" padded with spaces;
    // MESSAGE-INTEGRITY; FINGERPRINT.

    /// §2.2 Sample IPv4 Response: XOR-MAPPED-ADDRESS 192.0.2.1:32853.
    static let ipv4Response: [UInt8] = hex("""
        0101003c 2112a442 b7e7a701 bc34d686 fa87dfae
        8022000b 74657374 20766563 746f7220
        00200008 0001a147 e112a643
        00080014 2b91f599 fd9e90c3 8c7489f9 2af9ba53 f06be7d7
        80280004 c07d4c96
        """)

    /// §2.3 Sample IPv6 Response: XOR-MAPPED-ADDRESS [2001:db8:1234:5678:11:2233:4455:6677]:32853.
    static let ipv6Response: [UInt8] = hex("""
        01010048 2112a442 b7e7a701 bc34d686 fa87dfae
        8022000b 74657374 20766563 746f7220
        00200014 0002a147 0113a9fa a5d3f179 bc25f4b5 bed2b9d9
        00080014 a382954e 4be67bf1 1784c97c 8292c275 bfe3ed41
        80280004 c8fb0b4c
        """)

    /// §2.4 Sample Request with Long-Term Authentication: USERNAME "マトリックス", NONCE, REALM "example.org".
    static let longTermRequest: [UInt8] = hex("""
        00010060 2112a442 78ad3433 c6ad72c0 29da412e
        00060012 e3839ee3 8388e383 aae38383 e382afe3 82b90000
        0015001c 662f2f34 39396b39 35346436 4f4c3334 6f4c3946 53547679 36347341
        0014000b 6578616d 706c652e 6f726700
        00080014 f6702465 6dd64a3e 02b8e071 2e85c9a2 8ca89666
        """)

    @Test func sampleRequest() throws {
        let received = try STUNReceivedMessage(parsing: Self.request[...])
        let message = received.message
        #expect(message.type == .bindingRequest)
        #expect(message.transactionID == Self.transactionID)
        #expect(message.attributes == [
            .software("STUN test client"), .priority(0x6e00_01ff), .iceControlled(tieBreaker: 0x932f_f9b1_5126_3b36),
            .username("evtj:h6vY"),
        ])
        #expect(message.username == "evtj:h6vY")
        #expect(message.priority == 0x6e00_01ff)
        #expect(message.iceControlled == 0x932f_f9b1_5126_3b36)
        #expect(message.iceControlling == nil)
        #expect(!message.useCandidate)
        #expect(received.hasFingerprint)
        #expect(received.hasValidIntegrity(key: STUNMessage.shortTermKey(password: Self.password)))
        #expect(!received.hasValidIntegrity(key: STUNMessage.shortTermKey(password: "VOkJxbRl1RmTxUk/WvJxBT")), "one letter off")
        #expect(message.unknownComprehensionRequired.isEmpty)

        let rebuilt = try message.serialized(
            integrityKey: STUNMessage.shortTermKey(password: Self.password), fingerprint: true, paddingByte: 0x20)
        #expect(rebuilt == Self.request)
    }

    static let responses: [(vector: [UInt8], mapped: String)] = [
        (ipv4Response, "192.0.2.1:32853"),
        (ipv6Response, "[2001:db8:1234:5678:11:2233:4455:6677]:32853"),
    ]

    @Test(arguments: responses)
    func sampleResponse(_ c: (vector: [UInt8], mapped: String)) throws {
        let (vector, mapped) = c
        let received = try STUNReceivedMessage(parsing: vector[...])
        let message = received.message
        #expect(message.type == .bindingSuccess)
        #expect(message.transactionID == Self.transactionID)
        #expect(message.xorMappedAddress == TransportAddress(mapped))
        #expect(message.attributes == [.software("test vector"), .xorMappedAddress(TransportAddress(mapped)!)])
        #expect(received.hasFingerprint)
        #expect(received.hasValidIntegrity(key: STUNMessage.shortTermKey(password: Self.password)))

        let rebuilt = try message.serialized(
            integrityKey: STUNMessage.shortTermKey(password: Self.password), fingerprint: true, paddingByte: 0x20)
        #expect(rebuilt == vector)
    }

    /// rtenc does not do long-term credentials (ICE uses short-term ones; the key would need MD5), but the vector
    /// parses, keeps REALM and NONCE as unknown comprehension-required attributes, and its MESSAGE-INTEGRITY checks out
    /// under the key RFC 8489 §9.2.2 derives: MD5("マトリックス:example.org:TheMatrIX"), computed with Python's hashlib.
    @Test func longTermRequest() throws {
        let received = try STUNReceivedMessage(parsing: Self.longTermRequest[...])
        let message = received.message
        #expect(message.type == .bindingRequest)
        #expect(message.username == "マトリックス")
        #expect(message.first(.nonce) == .other(type: .nonce, value: Array("f//499k954d6OL34oL9FSTvy64sA".utf8)))
        #expect(message.first(.realm) == .other(type: .realm, value: Array("example.org".utf8)))
        #expect(message.unknownComprehensionRequired == [.nonce, .realm])
        #expect(!received.hasFingerprint)
        #expect(received.hasValidIntegrity(key: hex("e8ca7ad59d5eb0518e312911d2dab2a9")))
        #expect(try message.serialized(integrityKey: hex("e8ca7ad59d5eb0518e312911d2dab2a9")) == Self.longTermRequest)
    }

    /// Drip-feed: every strict prefix of every vector is refused with a typed error; only the whole parses.
    static let vectors: [[UInt8]] = [request, ipv4Response, ipv6Response, longTermRequest]

    @Test(arguments: vectors)
    func everyTruncationIsRefused(_ vector: [UInt8]) throws {
        for end in 0..<vector.count {
            #expect(throws: WebRTCError.self, "prefix of \(end) bytes") { try STUNReceivedMessage(parsing: vector[..<end]) }
        }
        _ = try STUNReceivedMessage(parsing: vector[...])
        // And from an offset: slices keep their own indices.
        let shifted = [0xff, 0xee] + vector
        #expect(try STUNReceivedMessage(parsing: shifted[2...]).message == STUNReceivedMessage(parsing: vector[...]).message)
    }
}
