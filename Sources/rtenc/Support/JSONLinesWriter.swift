import Foundation

/// Writes one compact JSON object per line (`--stats-json`).
struct JSONLinesWriter {
    private let handle: FileHandle
    private let encoder: JSONEncoder
    let path: String

    init(path: String) throws {
        self.path = path
        guard FileManager.default.createFile(atPath: path, contents: nil) || FileManager.default.isWritableFile(atPath: path),
              let handle = FileHandle(forWritingAtPath: path) else {
            throw CLIError("cannot write \(path)")
        }
        handle.truncateFile(atOffset: 0)
        self.handle = handle
        encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
    }

    mutating func write(_ value: some Encodable) throws {
        var data = try encoder.encode(value)
        data.append(0x0A)
        do {
            try handle.write(contentsOf: data)
        } catch {
            throw CLIError("cannot write \(path): \(error.localizedDescription)")
        }
    }

    func close() throws {
        try? handle.close()
    }
}
