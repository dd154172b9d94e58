import Foundation
import TextCoding
import Testing

@Suite struct RFC3339Tests {
    @Test func aTimeReadFromTheWireIsWrittenBackExactly() throws {
        for text in ["2026-11-22T03:23:59.123Z", "2026-11-22T03:23:59.001Z", "1999-12-31T23:59:59.999Z", "2026-11-22T03:23:59.000Z"] {
            let date = try #require(RFC3339.parse(text))
            #expect(RFC3339.format(date) == text)
        }
    }

    @Test func finerThanMillisecondsIsDroppedAndOffsetsAreRead() throws {
        // Postgres keeps microseconds; the wire keeps milliseconds.
        let date = Date(timeIntervalSince1970: 1_795_317_839.123_999)
        #expect(RFC3339.format(date) == "2026-11-22T03:23:59.123Z")
        #expect(RFC3339.format(Date(timeIntervalSince1970: -0.000_5)) == "1969-12-31T23:59:59.999Z")
        let offset = try #require(RFC3339.parse("2026-11-22T04:23:59.123+01:00"))
        #expect(RFC3339.format(offset) == "2026-11-22T03:23:59.123Z")
        #expect(RFC3339.parse("yesterday") == nil)
    }
}
