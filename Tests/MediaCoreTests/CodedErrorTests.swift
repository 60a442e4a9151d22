import MediaCore
import Testing

/// The scaffold every module's error type adopts: codes compared by name, one code type per error type, and the
/// "code: reason (detail)" description.
@Suite struct CodedErrorTests {
    struct PlainError: CodedError {
        typealias Code = ErrorCode<PlainError>
        let code: Code
        let reason: String
        let file: String = #fileID
    }

    struct PositionedError: CodedError {
        typealias Code = ErrorCode<PositionedError>
        let code: Code
        let reason: String
        let offset: Int?
        let file: String = #fileID
        var detail: String? { offset.map { "at byte \($0)" } }
    }

    @Test(arguments: [
        (PositionedError(code: ErrorCode("truncated"), reason: "header ends early", offset: 7) as any CodedError,
         "truncated: header ends early (at byte 7)"),
        (PositionedError(code: ErrorCode("truncated"), reason: "header ends early", offset: nil), "truncated: header ends early"),
        (PlainError(code: ErrorCode("invalidValue"), reason: "version 3"), "invalidValue: version 3"),
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
        // One code type per error type: the same name under another owner is another type (no cross-module mix-ups).
        #expect(PlainError.Code.self != PositionedError.Code.self)
    }

    @Test func theCallSiteIsKept() {
        let error = PlainError(code: ErrorCode("x"), reason: "y")
        #expect(error.file == "MediaCoreTests/CodedErrorTests.swift")
    }
}
