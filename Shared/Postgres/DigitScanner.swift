/// A cursor over ASCII bytes for the fixed-layout text Postgres prints.
struct DigitScanner {
    private let bytes: [UInt8]
    private var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { position == bytes.count }

    mutating func skip(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard position + count <= bytes.count else { return false }
        for index in 0..<count where bytes[position + index] != literal.utf8Start[index] {
            return false
        }
        position += count
        return true
    }

    mutating func number(digits: Int) -> Int? { number(minDigits: digits, maxDigits: digits) }

    mutating func number(minDigits: Int, maxDigits: Int) -> Int? {
        var value = 0
        var count = 0
        while count < maxDigits, position < bytes.count, let digit = Self.digit(bytes[position]) {
            value = value * 10 + digit
            count += 1
            position += 1
        }
        return count >= minDigits ? value : nil
    }

    /// Up to `maxDigits` fractional digits, scaled to that many places.
    mutating func fraction(maxDigits: Int) -> Int64? {
        var value: Int64 = 0
        var count = 0
        while position < bytes.count, let digit = Self.digit(bytes[position]) {
            if count < maxDigits { value = value * 10 + Int64(digit) }
            count += 1
            position += 1
        }
        guard count > 0 else { return nil }
        for _ in min(count, maxDigits)..<maxDigits { value *= 10 }
        return value
    }

    /// +1 or -1 for a leading sign, consuming it; nil if there is none.
    mutating func sign() -> Int? {
        if skip("+") { return 1 }
        if skip("-") { return -1 }
        return nil
    }

    private static func digit(_ byte: UInt8) -> Int? {
        (48...57).contains(byte) ? Int(byte - 48) : nil
    }
}
