// avcC parse (ISO/IEC 14496-15 §5.3.3.1), the whole input as the box payload.
//
// Properties: what parses serialises to serializedSize bytes, and those bytes parse back to the same record.
import Bitstream
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAVCDecoderConfigurationRecord(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    guard let record = try? AVCDecoderConfigurationRecord(parsing: bytes[...]) else { return 0 }
    let serialized = record.serialized()
    check(serialized.count == record.serializedSize, "serialized() wrote other than serializedSize bytes")
    check(serialized.count <= bytes.count, "serialized() grew the record")
    check((try? AVCDecoderConfigurationRecord(parsing: serialized[...])) == record, "parse → serialize → parse changed it")
    check((1...4).contains(record.nalUnitLengthSize) && record.nalUnitLengthSize != 3, "length size \(record.nalUnitLengthSize)")
    return 0
}
