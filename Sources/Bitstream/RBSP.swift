/// Raw byte sequence payloads and the emulation-prevention layer around them (H.264 §7.3.1, §7.4.1; the same rule
/// holds for H.265 §7.3.1.1).
///
/// Inside a NAL unit the encoder inserts `emulation_prevention_three_byte` (0x03) after every two zero bytes that are
/// followed by a byte ≤ 0x03, so that no start code (00 00 01) can appear inside the payload:
///
///     RBSP       … 00 00 01 …        … 00 00 00 …        … 00 00 03 …
///     NAL        … 00 00 03 01 …     … 00 00 03 00 …     … 00 00 03 03 …
///
/// Both directions scan for the rare spot and copy everything in between in bulk.
public enum RBSP {
    /// NAL unit payload (the bytes after the header) → RBSP: drops every 0x03 that follows two zero bytes.
    ///
    /// - Parameter limit: stop after producing this many RBSP bytes. Parsers that only need the front of a NAL unit
    ///   (a slice header) pass a limit so a large slice is not copied whole.
    public static func removingEmulationPrevention(_ payload: ArraySlice<UInt8>, limit: Int = .max) -> [UInt8] {
        let end = Swift.min(payload.count, Swift.max(limit, 0))
        return payload.withUnsafeBufferPointer { input in
            var rbsp: [UInt8] = []
            rbsp.reserveCapacity(end)
            var copyStart = 0
            var index = 2
            // Only a 03 right after two zeros is an emulation_prevention_three_byte. Those two zeros cannot be
            // dropped bytes themselves, so looking back two bytes in the input is the same as counting zeros.
            while index < input.count, rbsp.count + (index - copyStart) < end {
                if input[index] == 0x03, input[index - 1] == 0, input[index - 2] == 0, index - 2 >= copyStart {
                    rbsp.append(contentsOf: UnsafeBufferPointer(rebasing: input[copyStart..<index]))
                    copyStart = index + 1
                    index += 3  // the next escape needs two new zero bytes first
                } else {
                    index += 1
                }
            }
            let remaining = Swift.min(input.count - copyStart, end - rbsp.count)
            if remaining > 0 {
                rbsp.append(contentsOf: UnsafeBufferPointer(rebasing: input[copyStart..<(copyStart + remaining)]))
            }
            return rbsp
        }
    }

    /// RBSP → NAL unit payload: inserts 0x03 wherever two zero bytes are followed by a byte ≤ 0x03, and after a
    /// final zero byte (§7.4.1: only a `cabac_zero_word` can end an RBSP with 0x00; the 0x03 then protects the next
    /// start code).
    public static func addingEmulationPrevention(_ rbsp: some Collection<UInt8>) -> [UInt8] {
        let input = Array(rbsp)
        var payload: [UInt8] = []
        payload.reserveCapacity(input.count + input.count / 64 + 1)
        input.withUnsafeBufferPointer { bytes in
            var copyStart = 0
            var zeros = 0
            for index in 0..<bytes.count {
                let byte = bytes[index]
                if zeros >= 2, byte <= 0x03 {
                    payload.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[copyStart..<index]))
                    payload.append(0x03)
                    copyStart = index
                    zeros = 0
                }
                zeros = byte == 0 ? zeros + 1 : 0
            }
            payload.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[copyStart...]))
        }
        if payload.last == 0x00 {
            payload.append(0x03)
        }
        return payload
    }

    /// Splits a whole NAL unit into its one-byte header and its RBSP.
    ///
    /// Only for NAL unit types with the one-byte header; types 14, 20 and 21 carry three more header bytes
    /// (§7.3.1) and are not parsed by this module.
    public static func split(nalUnit: ArraySlice<UInt8>, limit: Int = .max) throws(BitstreamError) -> (
        header: NALUnitHeader, rbsp: [UInt8]
    ) {
        guard let first = nalUnit.first else {
            throw BitstreamError(code: .emptyNALUnit, reason: "NAL unit has no header byte", offset: 0)
        }
        let header = NALUnitHeader(first)
        if header.forbiddenZeroBit {
            throw .make(.invalidValue, "forbidden_zero_bit is 1", offset: 0)
        }
        return (header, removingEmulationPrevention(nalUnit.dropFirst(), limit: limit))
    }

    /// Bit position of the rbsp_stop_one_bit (§7.3.2.11): the last 1 bit of the RBSP, after which only zero bits
    /// (alignment, cabac_zero_words) may follow. Nil when the RBSP holds no 1 bit at all. FFmpeg bounds its
    /// parameter-set reader here (`get_bit_length`), so syntax that runs into the stop bit reads as cut short.
    public static func stopBitOffset(_ rbsp: [UInt8]) -> Int? {
        guard let last = rbsp.lastIndex(where: { $0 != 0 }) else { return nil }
        return last * 8 + 7 - rbsp[last].trailingZeroBitCount
    }
}
