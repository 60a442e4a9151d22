import Foundation

/// A running process's memory as the kernel counts it (/proc/PID/status), and the files it holds open
/// (/proc/PID/fd): what the resource tests bound.
public enum ProcessMemory {
    /// Resident set size now, in KiB (`VmRSS`); nil once the process is gone.
    public static func residentKiB(_ pid: Int32) -> Int? { field("VmRSS", pid) }

    /// The peak resident set size so far, in KiB (`VmHWM`, the high-water mark); nil once the process is gone.
    public static func peakResidentKiB(_ pid: Int32) -> Int? { field("VmHWM", pid) }

    /// How many of the process's file descriptors are open on `path` (pid nil: this process).
    public static func descriptors(openOn path: String, pid: Int32? = nil) -> Int {
        let directory = "/proc/\(pid.map(String.init) ?? "self")/fd"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { (try? FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/\($0)")) == path }
            .count
    }

    private static func field(_ name: String, _ pid: Int32) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(name + ":") {
            return Int(line.dropFirst(name.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "")
        }
        return nil
    }
}
