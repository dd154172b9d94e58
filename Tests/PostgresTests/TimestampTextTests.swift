import Foundation
import Testing
@testable import Postgres

/// The timestamp text codec, without a server.
@Suite struct TimestampTextTests {
    @Test func formatsUTCWithMicroseconds() {
        #expect(TimestampText.format(Date(timeIntervalSince1970: 0)) == "1970-01-01 00:00:00.000000+00")
        #expect(TimestampText.format(Date(timeIntervalSince1970: 1_700_000_000.123456)) == "2023-11-14 22:13:20.123456+00")
        #expect(TimestampText.format(Date(timeIntervalSince1970: -0.5)) == "1969-12-31 23:59:59.500000+00")
    }

    @Test func parsesOffsetsFractionsAndPlainDates() {
        #expect(TimestampText.parse("2024-02-29 23:59:59.5+05:30") == Date(timeIntervalSince1970: 1_709_231_399.5))
        #expect(TimestampText.parse("1970-01-01 00:00:00+00") == Date(timeIntervalSince1970: 0))
        #expect(TimestampText.parse("1970-01-01 01:00:00-01") == Date(timeIntervalSince1970: 7200))
        #expect(TimestampText.parse("2000-03-01") == Date(timeIntervalSince1970: 951_868_800))
        #expect(TimestampText.parse("infinity") == .distantFuture)
    }

    @Test func rejectsMalformedText() {
        for text in ["", "2024-13-01", "2024-01-01 25:00", "2024-01-01 00:00:00+", "yesterday", "2024-01-01 00:00:00.+00"] {
            #expect(TimestampText.parse(text) == nil, "\(text)")
        }
    }

    @Test func formatThenParseIsLosslessToTheMicrosecond() throws {
        for seconds in [0.000001, 1_234_567_890.654321, -86_400.25, 4_102_444_800.999999] {
            let date = Date(timeIntervalSince1970: seconds)
            let parsed = try #require(TimestampText.parse(TimestampText.format(date)))
            #expect(abs(parsed.timeIntervalSince(date)) < 0.000_000_5)
        }
    }
}
