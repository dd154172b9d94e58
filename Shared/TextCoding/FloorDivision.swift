extension Int64 {
    /// `self` divided by a positive `divisor` rounded toward negative infinity, and what is left
    /// (`0 ..< divisor`): the day of a time before 1970 is the one below, not the one toward
    /// zero as `/` gives. The one implementation for the time arithmetic of the project's
    /// servers (RFC 3339 times, Postgres's timestamps); it does not overflow at `Int64.min`.
    @inlinable
    public func dividedRoundingDown(by divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        precondition(divisor > 0, "a positive divisor")
        let quotient = self >= 0 ? self / divisor : (self + 1) / divisor - 1
        // The remainder is below `divisor`: its wrapping arithmetic is exact.
        return (quotient, self &- quotient &* divisor)
    }
}
