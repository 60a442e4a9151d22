/// The fuzz input as a stream of choices: structured targets read their decisions from it byte by byte, so
/// libFuzzer's mutations of the input become mutations of the decisions. Reading past the end yields zeros and
/// `isEmpty`, never a trap, so every input decodes to something.
public struct FuzzInput {
    public private(set) var bytes: ArraySlice<UInt8>

    public init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }

    public var isEmpty: Bool { bytes.isEmpty }

    public mutating func byte() -> UInt8 { bytes.popFirst() ?? 0 }

    public mutating func uint16() -> UInt16 { UInt16(byte()) << 8 | UInt16(byte()) }

    public mutating func uint32() -> UInt32 { UInt32(uint16()) << 16 | UInt32(uint16()) }

    /// The next `count` bytes, or fewer at the end.
    public mutating func take(_ count: Int) -> ArraySlice<UInt8> {
        let taken = bytes.prefix(count)
        bytes = bytes.dropFirst(taken.count)
        return taken
    }

    /// Everything not read yet.
    public mutating func rest() -> ArraySlice<UInt8> { take(bytes.count) }
}

/// The bytes libFuzzer hands over, copied into an array (the parsers take `ArraySlice<UInt8>`). Copying also makes
/// AddressSanitizer check reads against the exact input size.
public func fuzzBytes(_ data: UnsafeRawPointer?, _ size: Int) -> [UInt8] {
    guard let data, size > 0 else { return [] }
    return [UInt8](UnsafeRawBufferPointer(start: data, count: size))
}

/// Stops the run with a message when a property every valid result must have does not hold: a wrong result is as
/// much a finding as a crash. libFuzzer records the input that got here.
public func check(_ condition: Bool, _ message: @autoclosure () -> String, file: StaticString = #file, line: UInt = #line) {
    if !condition { fatalError("fuzz property failed: \(message())", file: file, line: line) }
}
