import Testing
import WebRTC

@Suite struct ICECandidateTests {
    /// Candidate lines as peers write them, and what rtenc reads from each.
    static let lines: [(line: String, kind: ICECandidate.Kind, address: TransportAddress?, why: String)] = [
        ("a=candidate:1 1 udp 2130706431 192.0.2.1 8189 typ host", .host, address("192.0.2.1:8189"), "rtenc's own"),
        ("candidate:842163049 1 udp 1677729535 198.51.100.7 61665 typ srflx raddr 10.0.0.5 rport 61665 generation 0 ufrag EsAw network-cost 999",
         .srflx, address("198.51.100.7:61665"), "Chromium srflx, as RTCIceCandidate.candidate"),
        ("a=candidate:3 1 UDP 92217087 203.0.113.4 3478 typ relay raddr 203.0.113.4 rport 50000", .relay,
         address("203.0.113.4:3478"), "relay, transport upper case"),
        ("a=candidate:4 1 udp 1853824767 10.1.2.3 50000 typ prflx raddr 0.0.0.0 rport 0", .prflx, address("10.1.2.3:50000"), "prflx"),
        ("a=candidate:2 1 udp 2122262783 2001:db8::5 9000 typ host generation 0 network-id 2", .host,
         address("[2001:db8::5]:9000"), "IPv6 host"),
        ("a=candidate:2395300328 1 udp 2113937151 6c8f5a8e-7b4a-4a4f-9e61-3f1e7d0c9a2b.local 54321 typ host generation 0",
         .host, nil, "Chromium mDNS host: no address rtenc can use"),
        ("a=candidate:5 1 tcp 1518280447 192.0.2.1 9 typ host tcptype active\r\n", .host, address("192.0.2.1:9"), "TCP, CRLF"),
    ]

    @Test(arguments: lines)
    func parses(_ c: (line: String, kind: ICECandidate.Kind, address: TransportAddress?, why: String)) throws {
        let candidate = try ICECandidate(parsing: c.line)
        #expect(candidate.kind == c.kind, "\(c.why)")
        #expect(candidate.transportAddress == c.address, "\(c.why)")
        #expect(candidate.component == 1)
        // Round trip: the attribute value reads back to the same candidate.
        #expect(try ICECandidate(parsing: "a=" + candidate.attributeValue) == candidate, "\(c.why)")
    }

    @Test func fields() throws {
        let c = try ICECandidate(parsing: Self.lines[1].line)
        #expect(c.foundation == "842163049")
        #expect(c.priority == 1_677_729_535)
        #expect(c.relatedAddress == "10.0.0.5" && c.relatedPort == 61665)
        #expect(c.extensions.map(\.name) == ["generation", "ufrag", "network-cost"])
        #expect(c.extensions.map(\.value) == ["0", "EsAw", "999"])
        #expect(c.isUDP)
        #expect(try !ICECandidate(parsing: Self.lines.last!.line).isUDP)
    }

    @Test(arguments: [
        ("a=candidate:1 1 udp 2130706431 192.0.2.1 8189 typ", "no type"),
        ("a=candidate:1 1 udp 2130706431 192.0.2.1 typ host", "no port"),
        ("a=candidate:1 1 udp 2130706431 192.0.2.1 70000 typ host", "port out of range"),
        ("a=candidate:1 0 udp 2130706431 192.0.2.1 8189 typ host", "component 0"),
        ("a=candidate:1 257 udp 2130706431 192.0.2.1 8189 typ host", "component 257"),
        ("a=candidate:1 1 udp 0 192.0.2.1 8189 typ host", "priority 0"),
        ("a=candidate:1 1 udp 2147483648 192.0.2.1 8189 typ host", "priority 2^31"),
        ("a=candidate:1 1 udp -5 192.0.2.1 8189 typ host", "negative priority"),
        ("a=candidate:1 1 udp 2130706431 192.0.2.1 8189 type host", "\"type\" for \"typ\""),
        ("a=candidate:1 1 udp 2130706431 192.0.2.1 8189 typ hots", "unknown type"),
        ("a=candidate:f:o 1 udp 2130706431 192.0.2.1 8189 typ host", "foundation with a colon"),
        ("a=candidate:123456789012345678901234567890123 1 udp 1 192.0.2.1 8189 typ host", "foundation of 33"),
        ("a=candidate:1 1 udp 2130706431 192.0.2.1 8189 typ host generation", "extension without a value"),
        ("a=candidate:1 1 udp 2130706431 192.0.2.1 8189 typ srflx raddr 10.0.0.1 rport x", "rport not a number"),
        ("", "empty"),
    ])
    func refused(_ line: String, _ why: String) {
        #expect(throws: WebRTCError.self, "\(why)") { try ICECandidate(parsing: line) }
    }

    /// Every prefix of a candidate line is refused or parses; none traps.
    @Test func dripFeed() {
        let line = Self.lines[1].line
        for end in line.indices {
            _ = try? ICECandidate(parsing: line[..<end])
        }
    }

    @Test func hostCandidate() {
        let c = ICECandidate(host: address("[2001:db8::1]:5000"), localPreference: 65534)
        #expect(c.attributeValue == "candidate:\(c.foundation) 1 udp 2130706175 2001:db8::1 5000 typ host")
        #expect(c.foundation == ICECandidate(host: address("[2001:db8::1]:6000")).foundation, "same base IP, same foundation")
        #expect(c.foundation != ICECandidate(host: address("10.0.0.1:5000")).foundation)
    }
}

@Suite struct TransportAddressTests {
    @Test(arguments: [
        ("192.0.2.1", "192.0.2.1"), ("0.0.0.0", "0.0.0.0"), ("255.255.255.255", "255.255.255.255"),
        ("::", "::"), ("::1", "::1"), ("2001:DB8::1", "2001:db8::1"), ("2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"),
        ("2001:0db8:0000:0000:0000:ff00:0042:8329", "2001:db8::ff00:42:8329"), ("fe80::", "fe80::"),
        ("1:0:0:2:0:0:0:3", "1:0:0:2::3"), ("1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8"), ("1:0:2:3:4:5:6:7", "1:0:2:3:4:5:6:7"),
        ("::ffff:192.0.2.1", "::ffff:c000:201"), ("[::1]", "::1"),
    ])
    func parsesAndPrints(_ text: String, _ canonical: String) throws {
        let ip = try #require(IPAddress(text))
        #expect(ip.description == canonical)
        #expect(IPAddress(canonical) == ip)
        #expect(IPAddress(bytes: ip.bytes) == ip)
    }

    @Test(arguments: [
        "", "1.2.3", "1.2.3.4.5", "256.1.1.1", "01.2.3.4", "1.2.3.-4", " 1.2.3.4", "a.b.c.d", ":", ":::", "1::2::3",
        "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7::8", "12345::", "g::", "example.local", "fe80::1%eth0", "1:2:3:4:5:6:7",
    ])
    func refuses(_ text: String) {
        #expect(IPAddress(text) == nil, "\(text)")
    }

    @Test func transportAddresses() {
        #expect(TransportAddress("192.0.2.1:80")?.description == "192.0.2.1:80")
        #expect(TransportAddress("[2001:db8::1]:443")?.description == "[2001:db8::1]:443")
        #expect(TransportAddress("2001:db8::1:443") == nil, "IPv6 with a port needs brackets")
        #expect(TransportAddress("192.0.2.1") == nil)
        #expect(TransportAddress("192.0.2.1:65536") == nil)
        #expect(IPAddress("127.0.0.5")!.isLoopback && IPAddress("::1")!.isLoopback && !IPAddress("10.0.0.1")!.isLoopback)
        #expect(IPAddress(bytes: [1, 2, 3]) == nil)
    }
}
