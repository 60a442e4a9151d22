import FoundationEssentials

/// The output files of the bench commands: a directory made on demand and text written atomically, each failure one
/// line naming the command, the path and the system's reason.
enum OutputFiles {
    static func directory(_ path: String, option: String, command: String) throws(CLIError) -> URL {
        let url = URL(fileURLWithPath: path)
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        } catch {
            throw CLIError("\(command): cannot create \(option) \(path): \(fileErrorText(error))")
        }
        return url
    }

    static func write(_ text: String, to url: URL, command: String) throws(CLIError) {
        do {
            try Data(text.utf8).write(to: url, options: .atomic)
        } catch {
            throw CLIError("\(command): cannot write \(url.path): \(fileErrorText(error))")
        }
    }
}
