import Foundation
import TestSupport
import Testing

/// Every option of every command, given a bad value: one line on stderr that starts "rtenc: " and names the option,
/// says why the value is refused and shows a form that would be accepted, exit status 64, nothing on stdout.
/// Usage errors are found before a command runs, so these rows are cheap whatever the command.
@Suite struct OptionErrorTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var arguments: [String]
        /// The option, the reason and a valid form, each somewhere in the line.
        var says: [String]
        var testDescription: String { arguments.joined(separator: " ") }

        init(_ arguments: [String], _ says: String...) {
            self.arguments = arguments
            self.says = says
        }
    }

    static let relay = ["relay", "--listen", "6000", "--to", "127.0.0.1:5004"]
    static let receive = ["receive", "--port", "5004"]

    static let cases: [Case] = [
        // The issue's rows.
        Case(["stream", "--level", "3.3"], "--level '3.3'", "not an H.264 level", "1, 1b, 1.1", "3, 3.1, 3.2", "6.2"),
        Case(["stream", "--level", "33"], "--level '33'", "not an H.264 level", "3.1 may also be written 31"),
        Case(["stream", "--preset", "turbo"], "--preset 'turbo'", "expected one of",
             "ultrafast, superfast, veryfast, faster, fast, medium, slow, slower, veryslow, placebo"),
        Case(["stream", "--size", "641x361"], "--size '641x361'", "4:2:0 video needs an even width and height",
             "nearest valid size 640x360"),
        Case(["stream", "--to", "localhost"], "--to 'localhost'", "no port", "HOST:PORT", "localhost:5004"),
        Case(["stream", "--to", "127.0.0.1:99999"], "--to '127.0.0.1:99999'", "port 99999 is out of range",
             "PORT 1…65534"),
        // EncoderOptions (stream, encode).
        Case(["encode", "--bitrate", "fast"], "--bitrate 'fast'", "not a bit rate", "2M, 500k or 2000000"),
        Case(["encode", "--bitrate", "0"], "--bitrate '0'", "more than 0", "2M, 500k or 2000000"),
        Case(["encode", "--bitrate", "5"], "--bitrate '5'", "out of range", "10k…100M"),
        Case(["encode", "--bitrate", "9G"], "--bitrate '9G'", "out of range", "10k…100M"),
        Case(["encode", "--max-rate-ratio", "0.5"], "--max-rate-ratio '0.5'", "out of range", "0 (no cap) or 1…10"),
        Case(["encode", "--max-rate-ratio", "1e300"], "--max-rate-ratio", "out of range", "0 (no cap) or 1…10"),
        Case(["encode", "--max-rate-ratio", "lots"], "--max-rate-ratio 'lots'", "not a number", "0 (no cap) or 1…10"),
        Case(["encode", "--keyint", "-1"], "--keyint '-1'", "out of range", "0 or more frames"),
        Case(["encode", "--keyint", "1.5"], "--keyint '1.5'", "not a whole number", "0 or more frames"),
        Case(["encode", "--keyint-seconds", "-2"], "--keyint-seconds '-2'", "out of range", "0 or more seconds"),
        Case(["encode", "--keyint-seconds", "inf"], "--keyint-seconds 'inf'", "not a number", "0 or more seconds"),
        Case(["encode", "--force-idr", "1,x"], "--force-idr '1,x'", "'x' is not a frame number", "like 0,150,300"),
        Case(["encode", "--force-idr", "-3"], "--force-idr '-3'", "'-3' is not a frame number", "like 0,150,300"),
        Case(["encode", "--profile", "ultra"], "--profile 'ultra'", "expected one of", "baseline, constrained-baseline"),
        Case(["encode", "--level", "7"], "--level '7'", "not an H.264 level", "6.2"),
        Case(["encode", "--encoder", "gpu"], "--encoder 'gpu'", "expected one of", "auto, software or vaapi"),
        Case(["encode", "--threads", "0"], "--threads '0'", "out of range", "1…16"),
        Case(["encode", "--threads", "many"], "--threads 'many'", "not a whole number", "1…16"),
        // InputOptions (stream, encode).
        Case(["encode", "--size", "0x0"], "--size '0x0'", "16…8192", "nearest valid size 16x16"),
        Case(["encode", "--size", "100000x100000"], "--size", "16…8192", "nearest valid size 8192x8192"),
        Case(["encode", "--size", "1280"], "--size '1280'", "not a size", "WxH, like 1280x720"),
        Case(["encode", "--size", "-640x360"], "--size '-640x360'", "16…8192", "nearest valid size 16x360"),
        Case(["encode", "--fps", "0"], "--fps '0'", "out of range", "1…240 frames per second"),
        Case(["encode", "--fps", "29.97"], "--fps '29.97'", "not a whole number", "1…240 frames per second"),
        Case(["encode", "--frames", "0"], "--frames '0'", "out of range", "1 or more frames"),
        // NetworkOptions (stream, send).
        Case(["stream", "--to", "127.0.0.1:0"], "--to '127.0.0.1:0'", "port 0 is out of range", "PORT 1…65534"),
        Case(["stream", "--to", "127.0.0.1:http"], "--to", "port 'http' is not a number", "HOST:PORT"),
        Case(["stream", "--to", ":5004"], "--to ':5004'", "no host", "127.0.0.1:5004"),
        Case(["stream", "--to", "::1:5004"], "--to '::1:5004'", "an IPv6 address needs brackets", "[::1]:5004"),
        Case(["stream", "--local-port", "70000"], "--local-port '70000'", "out of range", "0…65535"),
        Case(["stream", "--local-port", "65535"], "--local-port 65535", "leaves no port for RTCP", "1…65534"),
        Case(["stream", "--start-delay", "-1"], "--start-delay '-1'", "out of range", "0…3600 seconds"),
        Case(["stream", "--mtu", "99"], "--mtu '99'", "out of range", "100…"),
        Case(["stream", "--mtu", "big"], "--mtu 'big'", "not a whole number", "100…"),
        Case(["stream", "--mode", "2"], "--mode '2'", "out of range", "0 or 1"),
        Case(["stream", "--aggregation", "some"], "--aggregation 'some'", "expected one of", "none, zero-latency or max"),
        Case(["stream", "--payload-type", "34"], "--payload-type '34'", "out of range", "96…127"),
        Case(["stream", "--payload-type", "300"], "--payload-type '300'", "out of range", "96…127"),
        Case(["stream", "--ssrc", "0"], "--ssrc '0'", "out of range", "1…4294967295"),
        Case(["stream", "--ssrc", "5000000000"], "--ssrc '5000000000'", "out of range", "1…4294967295"),
        Case(["stream", "--bye-delay", "11"], "--bye-delay '11'", "out of range", "0…10 seconds"),
        Case(["stream", "--bye-delay", "nan"], "--bye-delay 'nan'", "not a number", "0…10 seconds"),
        Case(["stream", "--srtp-suite", "AES"], "--srtp-suite 'AES'", "expected one of",
             "AES_CM_128_HMAC_SHA1_80 or AES_CM_128_HMAC_SHA1_32"),
        Case(["stream", "--srtp-key", "c2hvcnQ="], "--srtp-key", "must be the base64 of 30 bytes", "14-byte salt"),
        Case(["stream", "--duration", "0"], "--duration '0'", "out of range", "more than 0 seconds"),
        Case(["stream", "--duration", "soon"], "--duration 'soon'", "not a number", "more than 0 seconds"),
        // send.
        Case(["send", "x.h264", "--fps", "0"], "--fps '0'", "out of range", "1…240"),
        Case(["send", "x.h264", "--speed", "0"], "--speed '0'", "out of range", "more than 0 and at most 1000"),
        Case(["send", "x.h264", "--bitrate", "quick"], "--bitrate 'quick'", "not a bit rate", "2M, 500k or 2000000"),
        Case(["send", "x.h264", "--to", "localhost"], "--to 'localhost'", "no port", "HOST:PORT"),
        // packetize.
        Case(["packetize", "x.h264", "--mtu", "65496"], "--mtu '65496'", "out of range", "100…65495 bytes"),
        Case(["packetize", "x.h264", "--mode", "one"], "--mode 'one'", "not a whole number", "0 or 1"),
        Case(["packetize", "x.h264", "--fps", "-5"], "--fps '-5'", "out of range", "1…240"),
        Case(["packetize", "x.h264", "--aggregation", "all"], "--aggregation 'all'", "expected one of", "zero-latency"),
        // receive.
        Case(["receive", "--port", "0"], "--port '0'", "out of range", "1…65535"),
        Case(["receive", "--port", "70000"], "--port '70000'", "out of range", "1…65535"),
        Case(["receive", "--port", "65535"], "--port 65535", "leaves no port for RTCP", "--rtcp-mux"),
        Case(receive + ["--bind", "example.invalid"], "--bind 'example.invalid'", "not a numeric IP address", "0.0.0.0"),
        Case(receive + ["--frames", "0"], "--frames '0'", "out of range", "1 or more"),
        Case(receive + ["--timeout", "-1"], "--timeout '-1'", "out of range", "more than 0 seconds"),
        Case(receive + ["--srtp-suite", "x"], "--srtp-suite 'x'", "expected one of", "AES_CM_128_HMAC_SHA1_80"),
        Case(receive + ["--srtp-key", "c2hvcnQ="], "--srtp-key", "must be the base64 of 30 bytes", "14-byte salt"),
        // relay.
        Case(["relay", "--listen", "0", "--to", "127.0.0.1:5004"], "--listen '0'", "out of range", "1…65535"),
        Case(["relay", "--listen", "65535", "--to", "127.0.0.1:5004"], "--listen 65535", "leaves no port for RTCP",
             "1…65534"),
        Case(["relay", "--listen", "6000", "--to", "localhost"], "--to 'localhost'", "no port", "HOST:PORT"),
        Case(relay + ["--bind", "1.2.3.999"], "--bind '1.2.3.999'", "not a numeric IP address", "0.0.0.0"),
        Case(relay + ["--loss", "101"], "--loss '101'", "out of range", "0…100 percent"),
        Case(relay + ["--return-loss", "-1"], "--return-loss '-1'", "out of range", "0…100 percent"),
        Case(relay + ["--loss", "5", "--burst-loss", "0.5"], "--burst-loss '0.5'", "out of range", "1…1000000 packets"),
        Case(relay + ["--delay", "-5"], "--delay '-5'", "out of range", "0…10000 ms"),
        Case(relay + ["--jitter", "20000"], "--jitter '20000'", "out of range", "0…10000 ms"),
        Case(relay + ["--reorder", "200"], "--reorder '200'", "out of range", "0…100 percent"),
        Case(relay + ["--reorder-delay", "x"], "--reorder-delay 'x'", "not a number", "0…10000 ms"),
        Case(relay + ["--rate", "0"], "--rate '0'", "out of range", "more than 0 and at most"),
        Case(relay + ["--queue-bytes", "0"], "--queue-bytes '0'", "out of range", "bytes"),
        Case(relay + ["--drop-frames", "1,x"], "--drop-frames '1,x'", "not a frame number", "like 0,150,300"),
        Case(relay + ["--seed", "-1"], "--seed '-1'", "out of range", "0…"),
        Case(relay + ["--duration", "0"], "--duration '0'", "out of range", "more than 0 seconds"),
        // bench adapt.
        Case(["bench", "adapt", "--scenario", "nope"], "--scenario 'nope'", "not a scenario",
             "step, ramp, square or trace:FILE"),
        Case(["bench", "adapt", "--policy", "fast"], "--policy 'fast'", "not a policy", "vbv, nocap, hardcap, adjuster"),
        Case(["bench", "adapt", "--size", "641x361"], "--size '641x361'", "even width and height", "640x360"),
        Case(["bench", "adapt", "--fps", "0"], "--fps '0'", "out of range", "1…240"),
        Case(["bench", "adapt", "--preset", "turbo"], "--preset 'turbo'", "expected one of", "ultrafast"),
        Case(["bench", "adapt", "--threads", "17"], "--threads '17'", "out of range", "1…16"),
        Case(["bench", "adapt", "--keyframe-every", "0"], "--keyframe-every '0'", "out of range", "0.1 seconds or more"),
        Case(["bench", "adapt", "--tag", "a b"], "--tag 'a b'", "not a tag", "letters, digits"),
    ]

    @Test(arguments: cases)
    func badValueIsOneLineThatSaysWhy(_ testCase: Case) throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try CLIRunner.rtenc(testCase.arguments, timeout: 20, currentDirectory: dir)
        #expect(result.status == 64, "\(result.stderrText)")
        #expect(!result.terminatedBySignal)
        let lines = result.stderrText.split(separator: "\n")
        #expect(lines.count == 1, "\(result.stderrText)")
        #expect(lines.first?.hasPrefix("rtenc: ") == true, "\(result.stderrText)")
        for words in testCase.says {
            #expect(result.stderrText.contains(words), "missing \"\(words)\" in \(result.stderrText)")
        }
        #expect(result.stdout.isEmpty)
        // A refused command line starts nothing: no output, SDP or directory appears.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }

    /// Files named on the command line that cannot be read or written: a runtime error (status 1) whose one line
    /// names the path and says why as strerror(3) does. `dir` is a directory, `file` an empty regular file, run in a
    /// fresh directory that holds both.
    static let fileCases: [Case] = [
        Case(["send", "missing.h264"], "missing.h264", "No such file or directory"),
        Case(["send", "dir"], "dir", "Is a directory"),
        Case(["packetize", "missing.h264"], "missing.h264", "No such file or directory"),
        Case(["annexb", "missing.mp4", "-o", "out.h264"], "missing.mp4", "No such file or directory"),
        Case(["encode", "missing.y4m", "--frames", "1", "-o", "out.h264"], "missing.y4m", "No such file or directory"),
        Case(["encode", "--frames", "1", "--size", "160x120", "-o", "nodir/out.h264"], "nodir/out.h264",
             "No such file or directory"),
        Case(["encode", "--frames", "1", "--size", "160x120", "-o", "out.h264", "--stats-json", "nodir/s.json"],
             "nodir/s.json", "No such file or directory"),
        Case(["stream", "--frames", "1", "--sdp", "nodir/s.sdp"], "nodir/s.sdp", "No such file or directory"),
        Case(["stream", "--frames", "1", "--sdp", "s.sdp", "--srtp-key-file", "missing.key"], "--srtp-key-file missing.key",
             "No such file or directory"),
        Case(["receive", "--sdp", "missing.sdp"], "missing.sdp", "No such file or directory"),
        Case(["receive", "--sdp", "dir"], "cannot read dir", "Is a directory"),
        Case(["relay", "--listen", "6000", "--to", "127.0.0.1:5004", "--rate-trace", "missing.csv"], "missing.csv",
             "No such file or directory"),
        Case(["bench", "adapt", "--scenario", "trace:missing.csv", "--no-plot"], "missing.csv", "No such file or directory"),
        Case(["bench", "adapt", "--output-dir", "file/x"], "--output-dir file/x", "Not a directory"),
    ]

    @Test(arguments: fileCases)
    func unusableFileIsOneLineWithItsPathAndReason(_ testCase: Case) throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("dir"), withIntermediateDirectories: false)
        try Data().write(to: dir.appendingPathComponent("file"))
        let result = try CLIRunner.rtenc(testCase.arguments, timeout: 30, currentDirectory: dir)
        #expect(result.status == 1, "\(result.stderrText)")
        #expect(!result.terminatedBySignal)
        let lines = result.stderrText.split(separator: "\n")
        #expect(lines.count == 1, "\(result.stderrText)")
        #expect(lines.first?.hasPrefix("rtenc: ") == true, "\(result.stderrText)")
        for words in testCase.says {
            #expect(lines.first?.contains(words) == true, "missing \"\(words)\" in \(result.stderrText)")
        }
    }

    /// Values the issue's users typed that must work: the level as 3, 3.0 or 30 is the same level in the stream.
    @Test(arguments: [
        (["--level", "3"], 30), (["--level", "3.0"], 30), (["--level", "30"], 30), (["--level", "3.1"], 31),
        (["--level", "31"], 31), (["--level", "4.0", "--bitrate", "500k", "--size", "642x362"], 40),
    ])
    func acceptedValues(arguments: [String], level: Int) throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let output = dir.appendingPathComponent("out.h264").path
        let result = try CLIRunner.rtenc(
            ["encode", "--quiet", "--frames", "1", "-o", output]
                + (arguments.contains("--size") ? arguments : arguments + ["--size", "320x240"]), timeout: 60)
        try #require(result.status == 0, "\(result.stderrText)")
        #expect(try FFprobe.probe(output).level == level)
    }

    /// `--to localhost:PORT` resolves (to 127.0.0.1 here) and the stream runs.
    @Test func aHostNameDestinationResolves() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let sdp = dir.appendingPathComponent("s.sdp").path
        let result = try CLIRunner.rtenc([
            "stream", "--quiet", "--frames", "2", "--size", "160x120", "--to", "localhost:\(TestPorts.next())",
            "--bye-delay", "0", "--sdp", sdp,
        ], timeout: 30)
        #expect(result.status == 0, "\(result.stderrText)")
        let text = try String(contentsOfFile: sdp, encoding: .utf8)
        #expect(text.contains("c=IN IP4 127.0.0.1"), "\(text)")
    }

    static let commands: [[String]] = [
        [], ["stream"], ["encode"], ["send"], ["receive"], ["annexb"], ["inspect"], ["packetize"], ["probe"],
        ["relay"], ["bench"], ["bench", "adapt"],
    ]

    /// --help of every command shows defaults as they are typed: never a Swift value's description such as
    /// `BitRate(bitsPerSecond: 2000000)` or `Optional(…)`.
    @Test(arguments: commands)
    func helpShowsDefaultsAsTyped(command: [String]) throws {
        let result = try CLIRunner.rtenc(command + ["--help"], timeout: 20)
        #expect(result.status == 0, "\(result.stderrText)")
        let help = result.stdoutText
        #expect(help.contains("USAGE: rtenc"))
        for pattern in [#"[A-Z][A-Za-z0-9]*\([a-zA-Z]+:"#, #"Optional\("#, #"default: [A-Za-z]+\("#, #"default: \."#] {
            #expect(help.range(of: pattern, options: .regularExpression) == nil, "\(pattern) in \(help)")
        }
        if command == ["stream"] || command == ["encode"] {
            #expect(help.contains("(default: 2M)"), "\(help)")
        }
    }
}
