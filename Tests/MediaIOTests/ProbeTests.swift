import Foundation
import Testing
@testable import MediaIO

@Suite struct VAProbeTests {
    @Test func missingDirectoryIsAReasonNotACrash() {
        let report = VAProbe.probeAll(directory: "/nonexistent/dri")
        #expect(report.devices.isEmpty)
        #expect(report.problem == "no /nonexistent/dri render nodes (/nonexistent/dri does not exist)")
    }

    @Test func directoryWithoutRenderNodes() throws {
        try withTemporaryDirectory { directory in
            _ = FileManager.default.createFile(atPath: directory.appendingPathComponent("card0").path, contents: nil)
            let report = VAProbe.probeAll(directory: directory.path)
            #expect(report.devices.isEmpty)
            #expect(report.problem == "no \(directory.path) render nodes (renderD*)")
        }
    }

    @Test func nonDRMNodeFailsWithAReason() throws {
        // /dev/null opens fine but is no DRM device: libva must refuse it, in one of its two ways.
        let report = VAProbe.probe(devicePath: "/dev/null")
        #expect(!report.canEncodeH264)
        let problem = try #require(report.problem)
        #expect(problem.hasPrefix("vaGetDisplayDRM failed") || problem.hasPrefix("vaInitialize failed"), "\(problem)")
    }

    @Test func unopenableNodeSaysWhy() throws {
        try withTemporaryDirectory { directory in
            // A renderD name that is a directory: open(O_RDWR) fails with EISDIR, as it would with EACCES.
            let node = directory.appendingPathComponent("renderD128")
            try FileManager.default.createDirectory(at: node, withIntermediateDirectories: false)
            let report = VAProbe.probeAll(directory: directory.path)
            #expect(report.problem == nil)
            #expect(report.devices.count == 1)
            #expect(report.devices.first?.problem == "cannot open \(node.path): Is a directory")
        }
    }

    @Test func thisMachinesDevicesAllHaveAnAnswer() {
        // Whatever this machine has: every device is usable or says why, and an empty result says why.
        let report = VAProbe.probeAll()
        if report.devices.isEmpty {
            #expect(report.problem != nil)
        }
        for device in report.devices {
            #expect(device.problem != nil || device.vendor != nil)
        }
    }
}

@Suite struct EncoderProbeTests {
    @Test func debianLibavcodecHasLibx264AndVAAPIButNoOpenH264() throws {
        let reports = Dictionary(uniqueKeysWithValues: try EncoderProbe.libavcodecEncoders().map { ($0.name, $0) })
        let x264 = try #require(reports["libx264"])
        #expect(x264.available)
        #expect(x264.longName?.contains("H.264") == true)
        #expect(reports["h264_vaapi"]?.available == true && reports["h264_vaapi"]?.needsHardware == true)
        #expect(reports["libopenh264"]?.available == false)
    }

    @Test func unknownNamesAreUnavailable() throws {
        #expect(try EncoderProbe.libavcodecEncoders(named: ["no_such_encoder"]) ==
                [LibAVEncoderReport(name: "no_such_encoder", available: false, longName: nil)])
    }
}
