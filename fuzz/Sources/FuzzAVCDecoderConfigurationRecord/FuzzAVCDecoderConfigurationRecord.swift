// avcC parse (ISO/IEC 14496-15 §5.3.3.1), the whole input as the box payload.
//
// Properties: what parses serialises to serializedSize bytes, and those bytes parse back to the same record (a
// High-profile extension cut short is dropped with a warning, so the record read back has no other warning than 3-byte
// lengths, which stay and warn again, and equals the first one once that is discounted: the same serialization).
import Bitstream
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAVCDecoderConfigurationRecord(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    guard let record = try? AVCDecoderConfigurationRecord(parsing: bytes[...]) else { return 0 }
    let serialized = record.serialized()
    check(serialized.count == record.serializedSize, "serialized() wrote other than serializedSize bytes")
    check(serialized.count <= bytes.count, "serialized() grew the record")
    let again = try? AVCDecoderConfigurationRecord(parsing: serialized[...])
    check(again?.serialized() == serialized, "parse → serialize → parse changed it")
    let lengthWarnings = record.warnings.filter { $0.syntaxElement == "lengthSizeMinusOne" }
    check(again?.warnings == lengthWarnings, "a serialized record parses with other warnings than 3-byte lengths")
    check(lengthWarnings.count == (record.nalUnitLengthSize == 3 ? 1 : 0), "3-byte lengths without their one warning")
    check(record.warnings == lengthWarnings ? again == record : again?.highProfileExtension == nil, "parse → serialize → parse changed it")
    check((1...4).contains(record.nalUnitLengthSize), "length size \(record.nalUnitLengthSize)")
    return 0
}
