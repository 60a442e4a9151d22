import Testing
@testable import RTP
@testable import RTPOut

/// Drip-feed: every strict prefix of `bytes` must fail with an `RTPError` (never crash, never parse);
/// `whole` says whether the complete input must parse.
func dripFeed<T>(_ bytes: [UInt8], from first: Int = 0, _ parse: (ArraySlice<UInt8>) throws(RTPError) -> T) {
    for length in first ..< bytes.count {
        do {
            _ = try parse(bytes[0 ..< length])
            Issue.record("prefix of \(length)/\(bytes.count) bytes parsed")
        } catch {}
    }
    do { _ = try parse(bytes[...]) } catch { Issue.record("whole input failed: \(error)") }
}

func hex(_ bytes: some Sequence<UInt8>) -> String {
    bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined(separator: " ")
}
