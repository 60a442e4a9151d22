import MediaCore
import Testing

/// The scaffold every module's error type adopts: codes compared by name, one code type per error type, the one
/// factory (`make`) that keeps the call site, and the "code: reason (detail)" description.
@Suite struct CodedErrorTests {
    enum PlainDomain {}
    typealias PlainError = PlainCodedError<PlainDomain>

    struct PositionedError: ByteOffsetCodedError {
        let code: Code
        let reason: String
        let offset: Int?
        let file: String
        let line: UInt

        init(code: Code, reason: String, offset: Int?, file: String = #fileID, line: UInt = #line) {
            (self.code, self.reason, self.offset, self.file, self.line) = (code, reason, offset, file, line)
        }
    }

    @Test(arguments: [
        (PositionedError(code: ErrorCode("truncated"), reason: "header ends early", offset: 7) as any CodedError,
         "truncated: header ends early (at byte 7)"),
        (PositionedError(code: ErrorCode("truncated"), reason: "header ends early", offset: nil), "truncated: header ends early"),
        (PositionedError.make(ErrorCode("truncated"), "header ends early"), "truncated: header ends early"),
        (PositionedError.make(ErrorCode("truncated"), "header ends early", offset: 0), "truncated: header ends early (at byte 0)"),
        (PlainError(code: ErrorCode("invalidValue"), reason: "version 3"), "invalidValue: version 3"),
        (PlainError.make(ErrorCode("invalidValue"), "version 3"), "invalidValue: version 3"),
    ])
    func description(_ error: any CodedError, expected: String) {
        #expect(error.description == expected)
        #expect("\(error)" == expected)
    }

    @Test func codesCompareByName() {
        #expect(PlainError.Code("a") == PlainError.Code("a"))
        #expect(PlainError.Code("a") != PlainError.Code("b"))
        #expect(Set([PlainError.Code("a"), PlainError.Code("a"), PlainError.Code("b")]).count == 2)
        #expect(PlainError.Code("limitExceeded").description == "limitExceeded")
        // One code type per error type: the same name under another owner is another type (no cross-module mix-ups),
        // and so is another domain's plain error.
        #expect(PlainError.Code.self != PositionedError.Code.self)
        #expect(PlainError.Code.self != PlainCodedError<Int>.Code.self)
    }

    /// `make` is where throw sites go: the call site it records is theirs, not the scaffold's.
    @Test func theCallSiteIsKept() {
        let line: UInt = #line + 1
        let plain = PlainError.make(ErrorCode("x"), "y")
        #expect(plain.file == "MediaCoreTests/CodedErrorTests.swift")
        #expect(plain.line == line)
        let positioned = PositionedError.make(ErrorCode("x"), "y", offset: 3)
        #expect(positioned.file == "MediaCoreTests/CodedErrorTests.swift")
        #expect(positioned.line == line + 3)
        #expect(positioned.offset == 3)
        #expect(PositionedError.make(ErrorCode("x"), "y").offset == nil)
    }
}
