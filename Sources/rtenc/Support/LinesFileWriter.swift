#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials

/// Writes a file a line at a time — one compact JSON object per line (`--stats-json`) or CSV lines (`relay
/// --packet-log`) — under a temporary name renamed on `close()`: a run that fails leaves no file pretending to
/// describe a whole run.
final class LinesFileWriter {
    private let output: Console
    private let encoder = JSONEncoder()
    private let temporaryPath: String
    private var closed = false
    let path: String

    init(path: String) throws {
        self.path = path
        temporaryPath = path + ".partial"
        let descriptor = open(temporaryPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw CLIError("cannot write \(path): \(String(cString: strerror(errno)))") }
        output = Console(descriptor: descriptor)
        encoder.outputFormatting = [.sortedKeys]
    }

    func write(_ value: some Encodable) throws {
        var data = try encoder.encode(value)
        data.append(0x0A)
        guard output.writeAll(data) else {
            throw CLIError("cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }

    func write(line: String) throws {
        guard output.writeAll(Data((line + "\n").utf8)) else {
            throw CLIError("cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }

    func close() throws {
        guard !closed else { return }
        closed = true
        Glibc.close(output.descriptor)
        guard rename(temporaryPath, path) == 0 else {
            throw CLIError("cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }

    deinit {
        if !closed {
            Glibc.close(output.descriptor)
            unlink(temporaryPath)
        }
    }
}
