import Bitstream
@testable import rtenc
import Testing

/// The CLI's value parsers on their own: what each accepts, and for what it refuses, the reason and the form it asks
/// for instead. `OptionErrorTests` checks the same through the binary, as a user sees it.
@Suite struct OptionValueParsingTests {
    @Test(arguments: [
        ("3", H264Level.level3), ("3.0", .level3), ("30", .level3), ("3.1", .level3_1), ("31", .level3_1),
        ("1b", .level1b), ("1B", .level1b), ("1", .level1), ("1.0", .level1), ("10", .level1), ("11", .level1_1),
        ("4", .level4), ("40", .level4), ("5.1", .level5_1), ("51", .level5_1), ("6.2", .level6_2), (" 62 ", .level6_2),
    ])
    func levelsAsPeopleWriteThem(text: String, level: H264Level) throws {
        #expect(try LevelArgument.parse(text) == level)
    }

    @Test(arguments: ["3.3", "33", "7", "0", "05", "9", "3.10", "300", "", "level3", "1.b", "3,1"])
    func notALevel(text: String) {
        let error = try? #require(throws: OptionValueError.self) { try LevelArgument.parse(text) }
        #expect(error?.reason == "not an H.264 level")
        #expect(error?.expected.contains("1, 1b, 1.1, 1.2, 1.3, 2, 2.1, 2.2, 3, 3.1, 3.2, 4") == true)
    }

    @Test(arguments: [
        ("2M", 2_000_000), ("500k", 500_000), ("2000000", 2_000_000), ("1.5M", 1_500_000), ("300kbps", 300_000),
        ("1G", 1_000_000_000), (" 64K ", 64_000),
    ])
    func bitRates(text: String, bitsPerSecond: Int) throws {
        #expect(try BitRate.parse(text).bitsPerSecond == bitsPerSecond)
    }

    @Test(arguments: [
        ("fast", "not a bit rate"), ("", "not a bit rate"), ("M", "not a bit rate"), ("2MM", "not a bit rate"),
        ("0", "a bit rate must be more than 0"), ("-1M", "a bit rate must be more than 0"), ("nan", "not a bit rate"),
        ("inf", "not a bit rate"), ("11G", "more than 10G"), ("0.0001", "less than 1 bit per second"),
    ])
    func notABitRate(text: String, reason: String) {
        let error = try? #require(throws: OptionValueError.self) { try BitRate.parse(text) }
        #expect(error?.reason == reason)
        #expect(error?.expected.contains("2M, 500k or 2000000") == true)
    }

    @Test func bitRateRange() throws {
        let parse = BitRate.parser(in: 10_000...100_000_000)
        #expect(try parse("10k").bitsPerSecond == 10_000)
        let error = try? #require(throws: OptionValueError.self) { try parse("9999") }
        #expect(error == OptionValueError("out of range", expected: "expected 10k…100M (like 2M, 500k or 2000000)"))
    }

    /// --help shows defaults the way they are typed.
    @Test(arguments: [
        (2_000_000, "2M"), (500_000, "500k"), (1_500_000, "1.5M"), (2_000_001, "2000001"), (999, "999"),
        (10_000, "10k"), (1_250_000, "1250k"), (3_000_000_000, "3G"),
    ])
    func bitRateAsTyped(bitsPerSecond: Int, text: String) throws {
        #expect(BitRate(bitsPerSecond: bitsPerSecond).description == text)
        #expect(try BitRate.parse(text).bitsPerSecond == bitsPerSecond)
    }

    @Test(arguments: [
        ("1280x720", 1280, 720), ("640X360", 640, 360), ("16x16", 16, 16), ("8192x8192", 8192, 8192),
        ("642x362", 642, 362),
    ])
    func sizes(text: String, width: Int, height: Int) throws {
        #expect(try FrameSize.parse(text) == FrameSize(width: width, height: height))
    }

    /// The nearest valid size: each side clamped to 16…8192, an odd one rounded down to even.
    @Test(arguments: [
        ("641x361", "4:2:0 video needs an even width and height", "nearest valid size 640x360 (odd sides rounded down)"),
        ("640x361", "4:2:0 video needs an even width and height", "nearest valid size 640x360 (odd sides rounded down)"),
        ("17x17", "4:2:0 video needs an even width and height", "nearest valid size 16x16 (odd sides rounded down)"),
        ("0x0", "width and height must be 16…8192", "nearest valid size 16x16"),
        ("-640x360", "width and height must be 16…8192", "nearest valid size 16x360"),
        ("100000x100000", "width and height must be 16…8192", "nearest valid size 8192x8192"),
        ("8193x4321", "width and height must be 16…8192", "nearest valid size 8192x4320"),
        ("1280", "not a size", "expected WxH, like 1280x720"),
        ("1280x", "not a size", "expected WxH, like 1280x720"),
        ("1280x720x3", "not a size", "expected WxH, like 1280x720"),
        ("wide", "not a size", "expected WxH, like 1280x720"),
        ("99999999999999999999x2", "not a size", "expected WxH, like 1280x720"),
    ])
    func notASize(text: String, reason: String, expected: String) {
        let error = try? #require(throws: OptionValueError.self) { try FrameSize.parse(text) }
        #expect(error == OptionValueError(reason, expected: expected))
    }

    @Test(arguments: [
        ("127.0.0.1:5004", "127.0.0.1", 5004), ("localhost:5004", "localhost", 5004), ("[::1]:5004", "::1", 5004),
        ("example.invalid:1", "example.invalid", 1), ("10.0.0.1:65534", "10.0.0.1", 65534),
    ])
    func endpoints(text: String, host: String, port: UInt16) throws {
        #expect(try Endpoint.parse(text) == Endpoint(host: host, port: port))
    }

    @Test(arguments: [
        ("localhost", "no port"), ("127.0.0.1", "no port"), ("127.0.0.1:", "port '' is not a number"),
        ("127.0.0.1:99999", "port 99999 is out of range"), ("127.0.0.1:0", "port 0 is out of range"),
        ("127.0.0.1:65535", "port 65535 is out of range"), ("127.0.0.1:http", "port 'http' is not a number"),
        ("127.0.0.1:-1", "port '-1' is not a number"), (":5004", "no host"), ("[]:5004", "no host"),
        ("::1:5004", "an IPv6 address needs brackets"), ("[::1]", "no port"), ("[::1:5004", "no ']' after the IPv6 address"),
    ])
    func notAnEndpoint(text: String, reason: String) {
        let error = try? #require(throws: OptionValueError.self) { try Endpoint.parse(text) }
        #expect(error?.reason == reason)
        #expect(error?.expected.contains("HOST:PORT with PORT 1…65534") == true)
    }

    @Test func frameLists() throws {
        #expect(try FrameList.parse("0,150,300").frames == [0, 150, 300])
        #expect(try FrameList.parse("7").frames == [7])
        for text in ["1,x", "", "1,,2", "-1", "1.5"] {
            let error = try? #require(throws: OptionValueError.self) { try FrameList.parse(text) }
            #expect(error?.expected == "expected frame numbers from 0, comma separated, like 0,150,300", "\(text)")
        }
    }

    @Test func numbers() throws {
        let fps = OptionNumber.integer(1...240, unit: "frames per second")
        #expect(try fps("30") == 30)
        #expect((try? #require(throws: OptionValueError.self) { try fps("abc") })
            == OptionValueError("not a whole number", expected: "expected 1…240 frames per second"))
        #expect((try? #require(throws: OptionValueError.self) { try fps("29.97") })?.reason == "not a whole number")
        #expect((try? #require(throws: OptionValueError.self) { try fps("0") })?.reason == "out of range")
        #expect((try? #require(throws: OptionValueError.self) { try fps("99999999999999999999") })?.reason == "out of range")
        let port = OptionNumber.integer(1...UInt16.max)
        #expect((try? #require(throws: OptionValueError.self) { try port("70000") })
            == OptionValueError("out of range", expected: "expected 1…65535"))
        #expect((try? #require(throws: OptionValueError.self) { try port("-1") })?.reason == "out of range")
        let frames = OptionNumber.integer(1...Int.max, unit: "frames")
        #expect((try? #require(throws: OptionValueError.self) { try frames("0") })?.expected == "expected 1 or more frames")
        let mode = OptionNumber.integer(0...1)
        #expect((try? #require(throws: OptionValueError.self) { try mode("2") })?.expected == "expected 0 or 1")
        let percent = OptionNumber.decimal(0...100, unit: "percent")
        #expect(try percent("2.5") == 2.5)
        for text in ["nan", "inf", "-inf", "five", ""] {
            #expect((try? #require(throws: OptionValueError.self) { try percent(text) })
                == OptionValueError("not a number", expected: "expected 0…100 percent"), "\(text)")
        }
        #expect((try? #require(throws: OptionValueError.self) { try percent("100.5") })?.reason == "out of range")
    }

    @Test func bindAddresses() throws {
        #expect(try NumericAddress.parse("0.0.0.0") == "0.0.0.0")
        #expect(try NumericAddress.parse("::") == "::")
        #expect(try NumericAddress.parse("localhost") == "localhost")
        for text in ["example.invalid", "1.2.3.999", "", "::1:::x", "0.0.0.0:5004"] {
            #expect((try? #require(throws: OptionValueError.self) { try NumericAddress.parse(text) })?.reason
                == "not a numeric IP address", "\(text)")
        }
    }

    /// ArgumentParser's reports as one line that starts with the option (its wording, 1.8).
    @Test(arguments: [
        ("Error: The value 'x' is invalid for '--fps <fps>': not a whole number; expected 1…240",
         "--fps 'x': not a whole number; expected 1…240"),
        ("The value 'turbo' is invalid for '--preset <preset>'. Please provide one of the following:\n  - ultrafast\n"
            + "  - superfast\n  - veryfast\n  - faster\n  - fast\n  - medium\nHelp: --preset <preset>  libx264 preset.",
         "--preset 'turbo': expected one of ultrafast, superfast, veryfast, faster, fast, medium"),
        ("The value 'some' is invalid for '--aggregation <aggregation>'. Please provide one of 'none', 'zero-latency' or 'max'.",
         "--aggregation 'some': expected one of none, zero-latency or max"),
        ("The value 'x' is invalid for '--srtp-suite <suite>'. Please provide one of 'A' and 'B'.",
         "--srtp-suite 'x': expected one of A or B"),
        ("The value 'it's' is invalid for '--tag <tag>'", "--tag 'it's': invalid value"),
        ("The value 'a' is invalid for '<file>': why", "<file> 'a': why"),
        ("Error: --mtu must be 100…9000 bytes\nUsage: …", "--mtu must be 100…9000 bytes"),
        ("Missing expected argument '--listen <port>'\nHelp: …", "Missing expected argument '--listen <port>'"),
        ("", "invalid arguments"),
    ])
    func usageMessages(full: String, line: String) {
        #expect(UsageMessage.oneLine(full) == line)
    }
}
