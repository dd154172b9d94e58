import AuditAPI
import Foundation
import Testing

/// An event's details go to Postgres as the JSON text `jsonText` writes by hand: the members
/// in key order, and text that Foundation's decoder reads back as the same details.
@Suite struct AuditDetailsJSONTests {
    @Test func membersAreWrittenInKeyOrderWithTheirKinds() {
        let details: [String: AuditValue] = [
            "scope": .string("all"), "new_user": .bool(false), "bound": .bool(true), "count": .int(3), "delta": .int(-42),
        ]
        #expect(details.jsonText == #"{"bound":true,"count":3,"delta":-42,"new_user":false,"scope":"all"}"#)
        #expect([String: AuditValue]().jsonText == "{}")
    }

    @Test func textThatNeedsEscapingReadsBackTheSame() throws {
        let details: [String: AuditValue] = [
            "device_name": .string("Ann's \"iPhone\" \\ 15/Pro\n\t\u{01}é📱"), "k\"ey": .string(""),
            "largest": .int(Int.max), "smallest": .int(Int.min), "zero": .int(0),
        ]
        let text = details.jsonText
        #expect(try JSONDecoder().decode([String: AuditValue].self, from: Data(text.utf8)) == details)
        // The same object as Foundation's encoder writes (it escapes slashes, which JSON allows either way).
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let foundation = String(decoding: try encoder.encode(details), as: UTF8.self)
        #expect(text == foundation)
    }
}
