import Foundation
import TokensAPI

/// A user's not-before as the gateway and `tokens` read it from Redis (`RevocationKeys`: Unix
/// seconds with up to three decimals, or whole seconds).
/// Properties: nothing traps; an unsigned value reads as its exact milliseconds, a finer value
/// rounded up (a not-before never moves earlier), a value past `Int64` milliseconds as none,
/// as a reading of the digits says (the reference); every value read that `tokens` could have
/// written (not negative), written out again, reads the same.
enum NotBeforeFuzzing {
    static func run(_ bytes: UnsafeRawBufferPointer) {
        let text = String(decoding: bytes, as: UTF8.self)
        let read = RevocationKeys.notBeforeMilliseconds(text)
        if Self.isUnsignedDecimal(text) {
            let expected = Self.reference(text)
            FuzzCheck.require(read == expected, "\(text.debugDescription) reads as \(String(describing: read)), its digits say \(String(describing: expected))")
        }
        if let read, read >= 0 {
            let written = RevocationKeys.notBeforeValue(milliseconds: read)
            let again = RevocationKeys.notBeforeMilliseconds(written)
            FuzzCheck.require(again == read, "\(read) written as \(written) reads as \(String(describing: again))")
        }
    }

    /// Digits, and optionally a point and more digits; for any other text the target checks only
    /// that nothing traps.
    static func isUnsignedDecimal(_ text: String) -> Bool {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        return parts.allSatisfy { !$0.isEmpty && $0.utf8.allSatisfy { (48...57).contains($0) } }
    }

    /// The milliseconds an unsigned decimal names, rounded up, from its digits shifted by three
    /// places; nil when they do not fit in `Int64`.
    static func reference(_ text: String) -> Int64? {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let fraction = parts.count == 2 ? parts[1] : ""
        let finer = fraction.dropFirst(3).contains { $0 != "0" }
        guard let whole = Int64(String(parts[0]) + String((fraction + "000").prefix(3))) else { return nil }
        let (value, overflow) = whole.addingReportingOverflow(finer ? 1 : 0)
        return overflow ? nil : value
    }
}
