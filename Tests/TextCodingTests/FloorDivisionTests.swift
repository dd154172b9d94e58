import Testing
import TextCoding

/// `dividedRoundingDown(by:)` rounds toward negative infinity and leaves a remainder in
/// `0 ..< divisor` on both sides of zero and at `Int64`'s limits.
@Suite struct FloorDivisionTests {
    @Test func quotientsRoundDownAndRemaindersStayBelowTheDivisor() {
        for divisor: Int64 in [1, 7, 1000, 86_400, 86_400_000] {
            for value in Array(-2_500...2_500).map(Int64.init) + [-86_400_001, 86_400_001] {
                let (quotient, remainder) = value.dividedRoundingDown(by: divisor)
                #expect(quotient == Int64((Double(value) / Double(divisor)).rounded(.down)), "\(value) / \(divisor)")
                #expect(remainder >= 0 && remainder < divisor && quotient * divisor + remainder == value, "\(value) / \(divisor)")
            }
        }
        #expect(Int64(-1).dividedRoundingDown(by: 1000) == (-1, 999))
        #expect(Int64(-1000).dividedRoundingDown(by: 1000) == (-1, 0))
        #expect(Int64(-1001).dividedRoundingDown(by: 1000) == (-2, 999))
        #expect(Int64.min.dividedRoundingDown(by: 1000) == (-9_223_372_036_854_776, 192))
        #expect(Int64.max.dividedRoundingDown(by: 1000) == (9_223_372_036_854_775, 807))
    }
}
