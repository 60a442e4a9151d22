import Bitstream
import CLibAV

/// Decodes Annex-B H.264 or H.265 access units one at a time with libavcodec and counts what came out — the check
/// a receiver makes that a stream really decodes (`rtenc receive --decode`).
///
/// Corrupt input is not thrown: it is counted in `errors` (with the decoder's reason in `lastError`) and decoding
/// goes on with the next access unit, as a player would.
public final class AccessUnitDecoder {
    public let codec: VideoCodec
    public private(set) var framesDecoded = 0
    /// Access units the decoder rejected plus frames it produced with decode_error_flags set (concealed damage).
    public private(set) var errors = 0
    public private(set) var lastError: String?
    /// Size of the last decoded picture.
    public private(set) var width = 0
    public private(set) var height = 0
    /// Called with each decoded picture's luma plane (valid only during the call): how a receiver reads what the
    /// picture carries, such as the test pattern's `ClockBarcode`.
    public var onLuma: ((_ luma: UnsafeRawBufferPointer, _ width: Int, _ height: Int, _ bytesPerRow: Int) -> Void)?

    private let decoder: VideoDecoder
    private let packet: OwnedPacket
    private let frame: OwnedFrame
    private var sent: Int64 = 0

    public init(codec: VideoCodec = .h264) throws(MediaIOError) {
        self.codec = codec
        decoder = try VideoDecoder(codecID: codec == .hevc ? AV_CODEC_ID_HEVC : AV_CODEC_ID_H264, threads: 1)
        packet = try OwnedPacket()
        frame = try OwnedFrame()
    }

    /// Decodes one access unit (Annex-B bytes); returns how many frames came out.
    @discardableResult
    public func decode(annexB accessUnit: [UInt8]) -> Int {
        guard !accessUnit.isEmpty else { return 0 }
        do {
            try packet.fill(bytes: accessUnit, pts: sent, dts: sent, duration: 1, isKeyframe: false)
            sent += 1
            try decoder.send(packet)
        } catch {
            record(error)
            return 0
        }
        return receiveAll()
    }

    /// Drains the frames the decoder still holds; returns how many came out.
    @discardableResult
    public func finish() -> Int {
        do {
            try decoder.send(nil)
        } catch {
            record(error)
        }
        return receiveAll()
    }

    private func receiveAll() -> Int {
        var count = 0
        while true {
            do {
                switch try decoder.receive(into: frame) {
                case .frame:
                    count += 1
                    framesDecoded += 1
                    width = Int(frame.pointer.pointee.width)
                    height = Int(frame.pointer.pointee.height)
                    if let onLuma { passLuma(to: onLuma) }
                    if frame.pointer.pointee.decode_error_flags != 0 {
                        errors += 1
                        lastError = "frame decoded with errors (decode_error_flags \(frame.pointer.pointee.decode_error_flags))"
                    }
                case .needsInput, .drained:
                    return count
                }
            } catch {
                record(error)
                return count
            }
        }
    }

    /// The frame's first plane (libav's `data[0]`, a tuple element in Swift), when it is laid out top-down.
    private func passLuma(to onLuma: (UnsafeRawBufferPointer, Int, Int, Int) -> Void) {
        let picture = frame.pointer.pointee
        let bytesPerRow = Int(picture.linesize.0)
        guard let base = picture.data.0, bytesPerRow >= width, width > 0, height > 0 else { return }
        onLuma(UnsafeRawBufferPointer(start: base, count: bytesPerRow * (height - 1) + width), width, height, bytesPerRow)
    }

    private func record(_ error: MediaIOError) {
        errors += 1
        lastError = "\(error)"
    }
}
