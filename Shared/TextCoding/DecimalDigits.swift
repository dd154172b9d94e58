/// Integers in decimal, as `String(value)` spells them, written into memory the caller holds
/// (a JSON number of hand-written JSON) without a `String` in between.
public enum DecimalDigits {
    /// The most bytes `write` needs: `-9223372036854775808`.
    public static let maximumCount = 20

    /// Writes `value` at the start of `out` (at least `maximumCount` bytes); returns how many
    /// bytes it wrote.
    @inlinable
    public static func write(_ value: Int64, to out: UnsafeMutableRawBufferPointer) -> Int {
        precondition(out.count >= Self.maximumCount)
        var magnitude = value.magnitude
        // The digits from the last, at the end of a scratch of 20 bytes, then moved.
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.maximumCount) { scratch in
            var start = Self.maximumCount
            repeat {
                start -= 1
                scratch[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if value < 0 {
                start -= 1
                scratch[start] = UInt8(ascii: "-")
            }
            let count = Self.maximumCount - start
            out.copyMemory(from: UnsafeRawBufferPointer(UnsafeMutableBufferPointer(rebasing: scratch[start...])))
            return count
        }
    }
}
