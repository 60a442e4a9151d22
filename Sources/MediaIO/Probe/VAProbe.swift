#if canImport(Glibc)
import Glibc
#endif
import CLibAV
import LibAVSupport

/// What one VA-API render node offers for H.264 encoding, or why it cannot be used.
public struct VADeviceReport: Sendable, Hashable {
    /// One H.264 profile the driver encodes, with its encode entrypoints.
    public struct EncodeProfile: Sendable, Hashable {
        /// libva's name, e.g. "VAProfileH264High".
        public var profile: String
        /// libva's names, e.g. ["VAEntrypointEncSlice", "VAEntrypointEncSliceLP"].
        public var entrypoints: [String]
    }

    public var path: String
    /// vaQueryVendorString: driver and version, e.g. "Intel iHD driver for Intel(R) Gen Graphics - 23.1.1".
    public var vendor: String?
    /// VA-API version the driver implements ("1.17").
    public var apiVersion: String?
    public var h264EncodeProfiles: [EncodeProfile]
    /// Why this device cannot be used; nil when it opened and initialised.
    public var problem: String?

    /// True when the device can encode H.264 through VA-API.
    public var canEncodeH264: Bool { problem == nil && !h264EncodeProfiles.isEmpty }
}

/// The result of looking for VA-API devices.
public struct VAProbeReport: Sendable, Hashable {
    public var devices: [VADeviceReport]
    /// Why no device was found at all (no directory, no render nodes); nil when there were nodes to try.
    public var problem: String?
}

/// Finds VA-API render nodes and asks libva what each can encode. Probing never throws: every failure becomes a
/// reason in the report, since "no usable device" is an answer, not an error, for `rtenc probe`.
public enum VAProbe {
    /// Where DRM device nodes live on Linux.
    public static let defaultDirectory = "/dev/dri"

    /// Probes every `renderD*` node in `directory`, in name order.
    public static func probeAll(directory: String = defaultDirectory) -> VAProbeReport {
        let nodes: [String]
        switch renderNodes(in: directory) {
        case .failure(let failure): return VAProbeReport(devices: [], problem: failure.description)
        case .success(let found): nodes = found
        }
        guard !nodes.isEmpty else {
            return VAProbeReport(devices: [], problem: "no \(directory) render nodes (renderD*)")
        }
        return VAProbeReport(devices: nodes.map { probe(devicePath: $0) }, problem: nil)
    }

    /// Opens one device node, initialises libva on it and lists its H.264 encode profiles and entrypoints.
    public static func probe(devicePath: String) -> VADeviceReport {
        var report = VADeviceReport(path: devicePath, h264EncodeProfiles: [])
        let fd = open(devicePath, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else {
            report.problem = "cannot open \(devicePath): \(String(cString: strerror(errno)))"
            return report
        }
        defer { close(fd) }
        if let failure = LibAV.loadFailure(RTENC_LIBVA_DRM) {
            report.problem = failure
            return report
        }
        guard let display = rtenc_vaGetDisplayDRM(fd) else {
            report.problem = "vaGetDisplayDRM failed: \(devicePath) is not a DRM device"
            return report
        }
        let messages = VAMessages()
        rtenc_va_capture_messages(display, messages.pointer)
        defer { rtenc_vaTerminate(display) }
        var major: Int32 = 0, minor: Int32 = 0
        let status = rtenc_vaInitialize(display, &major, &minor)
        guard status == VA_STATUS_SUCCESS else {
            let detail = messages.text.isEmpty ? "" : " (\(messages.text))"
            report.problem = "vaInitialize failed: \(String(cString: rtenc_vaErrorStr(status)))\(detail)"
            return report
        }
        report.apiVersion = "\(major).\(minor)"
        report.vendor = rtenc_vaQueryVendorString(display).map { String(cString: $0) }
        report.h264EncodeProfiles = h264EncodeProfiles(display)
        return report
    }

    /// The H.264 profiles with at least one encode entrypoint (EncSlice, EncSliceLP).
    private static func h264EncodeProfiles(_ display: VADisplay) -> [VADeviceReport.EncodeProfile] {
        var profiles = [VAProfile](repeating: VAProfileNone, count: Int(max(0, rtenc_vaMaxNumProfiles(display))))
        var profileCount: Int32 = 0
        guard !profiles.isEmpty, rtenc_vaQueryConfigProfiles(display, &profiles, &profileCount) == VA_STATUS_SUCCESS else {
            return []
        }
        var result: [VADeviceReport.EncodeProfile] = []
        for profile in profiles.prefix(Int(profileCount)) {
            let name = String(cString: rtenc_vaProfileStr(profile))
            guard name.hasPrefix("VAProfileH264") else { continue }
            var entrypoints = [VAEntrypoint](repeating: VAEntrypoint(0), count: Int(max(0, rtenc_vaMaxNumEntrypoints(display))))
            var entrypointCount: Int32 = 0
            guard !entrypoints.isEmpty,
                  rtenc_vaQueryConfigEntrypoints(display, profile, &entrypoints, &entrypointCount) == VA_STATUS_SUCCESS else {
                continue
            }
            let encode = entrypoints.prefix(Int(entrypointCount))
                .filter { $0 == VAEntrypointEncSlice || $0 == VAEntrypointEncSliceLP }
                .map { String(cString: rtenc_vaEntrypointStr($0)) }
            if !encode.isEmpty { result.append(.init(profile: name, entrypoints: encode)) }
        }
        return result
    }

    /// Full paths of the `renderD*` entries of `directory`, sorted; a reason when the directory cannot be read.
    static func renderNodes(in directory: String) -> Result<[String], ProbeFailure> {
        guard let handle = opendir(directory) else {
            let reason = errno == ENOENT ? "no \(directory) render nodes (\(directory) does not exist)"
                                         : "cannot list \(directory): \(String(cString: strerror(errno)))"
            return .failure(ProbeFailure(reason))
        }
        defer { closedir(handle) }
        var nodes: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasPrefix("renderD") { nodes.append(directory + "/" + name) }
        }
        return .success(nodes.sorted())
    }

    struct ProbeFailure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}

/// The libva message sink for one probe, freed with it.
private final class VAMessages {
    let pointer: OpaquePointer?

    init() { pointer = rtenc_va_messages_create() }
    deinit { rtenc_va_messages_free(pointer) }

    /// Messages joined into one line.
    var text: String {
        guard let pointer, let raw = rtenc_va_messages_text(pointer) else { return "" }
        return String(cString: raw).split(whereSeparator: \.isNewline).joined(separator: "; ")
    }
}
