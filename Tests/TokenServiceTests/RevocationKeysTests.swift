import Foundation
import TokensAPI
import Testing

@Suite("Revocation keys")
struct RevocationKeysTests {
    @Test func notBeforeValuesCarryMillisecondsAndReadOldWholeSeconds() {
        #expect(RevocationKeys.notBeforeValue(milliseconds: 1_767_225_600_123) == "1767225600.123")
        #expect(RevocationKeys.notBeforeValue(milliseconds: 1_767_225_600_007) == "1767225600.007")
        #expect(RevocationKeys.notBeforeValue(milliseconds: 1_767_225_600_000) == "1767225600.000")
        #expect(RevocationKeys.notBeforeMilliseconds("1767225600.123") == 1_767_225_600_123)
        #expect(RevocationKeys.notBeforeMilliseconds("1767225600.5") == 1_767_225_600_500)
        #expect(RevocationKeys.notBeforeMilliseconds("1767225600") == 1_767_225_600_000)
        // Finer than a millisecond rounds up: a not-before never moves earlier.
        #expect(RevocationKeys.notBeforeMilliseconds("1767225600.1231") == 1_767_225_600_124)
        #expect(RevocationKeys.notBeforeMilliseconds("1767225600.1230") == 1_767_225_600_123)
        for bad in ["", "x", "1.", "1.x", "1.2.3", "1.-5"] {
            #expect(RevocationKeys.notBeforeMilliseconds(bad) == nil, "\(bad)")
        }
        let date = Date(timeIntervalSince1970: 1_767_225_600.1234)
        #expect(RevocationKeys.milliseconds(date, rounding: .down) == 1_767_225_600_123)
        #expect(RevocationKeys.milliseconds(date, rounding: .up) == 1_767_225_600_124)
    }
}
