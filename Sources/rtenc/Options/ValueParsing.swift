#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Bitstream
import FoundationEssentials

/// A bit rate as people write it: `2M`, `500k`, `2000000`, `1.5M`.
struct BitRate: ExpressibleByArgument, Sendable, Hashable {
    var bitsPerSecond: Int

    init(bitsPerSecond: Int) { self.bitsPerSecond = bitsPerSecond }

    init?(argument: String) {
        var text = argument.trimmingWhitespace().lowercased()
        var multiplier = 1.0
        if text.hasSuffix("bps") { text.removeLast(3) }
        switch text.last {
        case "k": multiplier = 1e3; text.removeLast()
        case "m": multiplier = 1e6; text.removeLast()
        case "g": multiplier = 1e9; text.removeLast()
        default: break
        }
        guard let value = Double(text), value.isFinite, value > 0, value * multiplier <= 10e9 else { return nil }
        bitsPerSecond = Int((value * multiplier).rounded())
        guard bitsPerSecond > 0 else { return nil }
    }

    static var defaultCompletionKind: CompletionKind { .default }

    var kilobitsPerSecond: Double { Double(bitsPerSecond) / 1000 }
}

/// `WxH`, e.g. `1280x720`.
struct FrameSize: ExpressibleByArgument, Sendable, Hashable, CustomStringConvertible {
    var width: Int
    var height: Int

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    init?(argument: String) {
        let parts = argument.lowercased().split(separator: "x")
        // 4:2:0 needs even sizes; 8192 is the encoder's largest side.
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]),
              (16...8192).contains(width), (16...8192).contains(height), width % 2 == 0, height % 2 == 0
        else { return nil }
        self.init(width: width, height: height)
    }

    var description: String { "\(width)x\(height)" }
}

/// `HOST:PORT`; an IPv6 host is written in brackets: `[::1]:5004`.
struct Endpoint: ExpressibleByArgument, Sendable, Hashable, CustomStringConvertible {
    var host: String
    var port: UInt16

    init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    init?(argument: String) {
        // RTCP goes to port + 1, so 65535 cannot be an RTP port.
        guard let colon = argument.lastIndex(of: ":"), let port = UInt16(argument[argument.index(after: colon)...]),
              port > 0, port < UInt16.max else { return nil }
        var host = String(argument[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { return nil }
        self.init(host: host, port: port)
    }

    var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// The profiles the CLI offers (`--profile`).
enum ProfileArgument: String, ExpressibleByArgument, CaseIterable {
    case baseline
    case constrainedBaseline = "constrained-baseline"
    case main
    case high
    case constrainedHigh = "constrained-high"

    var profile: H264Profile {
        switch self {
        case .baseline: .baseline
        case .constrainedBaseline: .constrainedBaseline
        case .main: .main
        case .high: .high
        case .constrainedHigh: .constrainedHigh
        }
    }
}

extension H264Level: ExpressibleByArgument {
    public init?(argument: String) {
        self.init(name: argument)
    }
}

/// `--force-idr 0,150,300`.
struct FrameList: ExpressibleByArgument, Sendable, Hashable {
    var frames: Set<Int>

    init?(argument: String) {
        var frames = Set<Int>()
        for part in argument.split(separator: ",", omittingEmptySubsequences: false) {
            guard let frame = Int(part.trimmingWhitespace()), frame >= 0 else { return nil }
            frames.insert(frame)
        }
        self.frames = frames
    }
}
