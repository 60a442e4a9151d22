import Foundation

/// Writes one compact JSON object per line (`--stats-json`), under a temporary name renamed on `close()`: a run that
/// fails leaves no statistics file pretending to describe a whole run.
final class JSONLinesWriter {
    private let handle: FileHandle
    private let encoder = JSONEncoder()
    private let temporaryPath: String
    private var closed = false
    let path: String

    init(path: String) throws {
        self.path = path
        temporaryPath = path + ".partial"
        guard FileManager.default.createFile(atPath: temporaryPath, contents: nil),
              let handle = FileHandle(forWritingAtPath: temporaryPath) else {
            throw CLIError("cannot write \(path)")
        }
        self.handle = handle
        encoder.outputFormatting = [.sortedKeys]
    }

    func write(_ value: some Encodable) throws {
        var data = try encoder.encode(value)
        data.append(0x0A)
        do {
            try handle.write(contentsOf: data)
        } catch {
            throw CLIError("cannot write \(path): \(error.localizedDescription)")
        }
    }

    func close() throws {
        guard !closed else { return }
        closed = true
        try? handle.close()
        guard rename(temporaryPath, path) == 0 else {
            throw CLIError("cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }

    deinit {
        if !closed {
            try? handle.close()
            unlink(temporaryPath)
        }
    }
}
