import Foundation
import Testing
import TextCoding

@Suite struct RFC3339MillisecondsTests {
    @Test func formatsAndParsesBackTheSameMilliseconds() {
        let samples: [(Int64, String)] = [
            (0, "1970-01-01T00:00:00.000Z"),
            (1_795_317_839_123, "2026-11-22T03:23:59.123Z"),
            (951_782_400_001, "2000-02-29T00:00:00.001Z"),
            (-1, "1969-12-31T23:59:59.999Z"),
            (253_402_300_799_999, "9999-12-31T23:59:59.999Z"),
        ]
        for (ms, text) in samples {
            #expect(RFC3339Milliseconds.format(ms) == text)
            #expect(RFC3339Milliseconds.parse(text) == ms)
        }
    }

    @Test func agreesWithFoundationOverManyTimes() throws {
        var generator = SystemRandomNumberGenerator()
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)
        for _ in 0..<2_000 {
            let ms = Int64.random(in: 0...4_102_444_800_000, using: &generator)  // 1970 to 2100
            let text = RFC3339Milliseconds.format(ms)
            let foundation = try style.parse(text)
            #expect(Int64((foundation.timeIntervalSince1970 * 1000).rounded()) == ms, "\(text)")
            #expect(RFC3339Milliseconds.parse(text) == ms)
        }
    }

    @Test func fractionsOfOtherLengthsAndNoFraction() {
        #expect(RFC3339Milliseconds.parse("2026-11-22T03:23:59Z") == 1_795_317_839_000)
        #expect(RFC3339Milliseconds.parse("2026-11-22T03:23:59.1Z") == 1_795_317_839_100)
        #expect(RFC3339Milliseconds.parse("2026-11-22T03:23:59.12Z") == 1_795_317_839_120)
        #expect(RFC3339Milliseconds.parse("2026-11-22T03:23:59.123456Z") == 1_795_317_839_123)
    }

    @Test func refusesWhatIsNotTheForm() {
        let bad = [
            "", "2026-11-22", "2026-11-22T03:23:59", "2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z", "2025-02-29T00:00:00Z",
            "2026-11-22T24:00:00Z", "2026-11-22T03:60:00Z", "2026-11-22T03:23:59.Z", "2026-11-22 03:23:59Z",
            "2026-11-22T03:23:59.12aZ", "2026-11-22T03:23:59+00:00", "２026-11-22T03:23:59Z",
            "2026-11-22T03:23:59.1234567890123456789012Z",
        ]
        for text in bad {
            #expect(RFC3339Milliseconds.parse(text) == nil, "\(text)")
        }
    }
}
