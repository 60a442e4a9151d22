import ArgumentParser
import MediaIO

/// `rtenc probe`: which encoders this machine can use, and why not when it cannot.
struct ProbeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "probe",
        abstract: "List VA-API devices (driver, H.264 encode profiles) and the software encoders available."
    )

    @Option(help: "Directory of DRM render nodes to probe.")
    var driDirectory = VAProbe.defaultDirectory

    @Option(help: "Probe this one device instead of every render node.")
    var device: String?

    func run() throws {
        print("VA-API (hardware):")
        let devices: [VADeviceReport]
        if let device {
            devices = [VAProbe.probe(devicePath: device)]
        } else {
            let report = VAProbe.probeAll(directory: driDirectory)
            if let problem = report.problem { print("  none usable: \(problem)") }
            devices = report.devices
        }
        for device in devices {
            if let problem = device.problem {
                print("  \(device.path): unusable: \(problem)")
                continue
            }
            print("  \(device.path): \(device.vendor ?? "unknown driver") (VA-API \(device.apiVersion ?? "?"))")
            if device.h264EncodeProfiles.isEmpty {
                print("    no H.264 encode entrypoints")
            }
            for profile in device.h264EncodeProfiles {
                print("    \(profile.profile): \(profile.entrypoints.joined(separator: ", "))")
            }
        }
        print("libavcodec encoders:")
        let encoders: [LibAVEncoderReport]
        do {
            encoders = try EncoderProbe.libavcodecEncoders()
        } catch {
            throw CLIError("probe: \(error)")
        }
        for encoder in encoders {
            let state = encoder.available
                ? (encoder.needsHardware ? "built in (needs a VA-API device)" : "available")
                : "not in this libavcodec"
            print("  \(encoder.name.paddingWithSpaces(toLength: 12)) \(state)")
        }
    }
}
