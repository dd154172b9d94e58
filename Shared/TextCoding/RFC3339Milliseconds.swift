/// RFC 3339 UTC times with milliseconds (`2026-11-22T03:23:59.123Z`), the form every service
/// writes on the wire, converted to and from milliseconds since 1970 by integer arithmetic:
/// Foundation's date formatters cost microseconds per call, and a list page or a user carries
/// up to hundreds of these.
public enum RFC3339Milliseconds {
    /// How many bytes `write` writes: `YYYY-MM-DDTHH:MM:SS.fffZ`.
    public static let formattedCount = 24

    /// `YYYY-MM-DDTHH:MM:SS.fffZ`, proleptic Gregorian.
    public static func format(_ milliseconds: Int64) -> String {
        String(unsafeUninitializedCapacity: Self.formattedCount) { buffer in
            Self.write(milliseconds, to: UnsafeMutableRawBufferPointer(buffer))
        }
    }

    /// Writes what `format` returns into the first `formattedCount` bytes of `out`, without a
    /// `String` in between (a page of results holds hundreds of times); returns the count.
    public static func write(_ milliseconds: Int64, to out: UnsafeMutableRawBufferPointer) -> Int {
        precondition(out.count >= Self.formattedCount)
        let (days, msOfDay) = Self.floorDivide(milliseconds, 86_400_000)
        let (year, month, day) = CivilDate.fromDays(Int(days))
        let time = Int(msOfDay)
        // Constant divisors: the compiler turns each into a multiplication.
        func two(_ value: Int, at offset: Int) {
            out[offset] = UInt8(ascii: "0") + UInt8(value / 10 % 10)
            out[offset + 1] = UInt8(ascii: "0") + UInt8(value % 10)
        }
        two(year / 100, at: 0)
        two(year, at: 2)
        out[4] = UInt8(ascii: "-")
        two(month, at: 5)
        out[7] = UInt8(ascii: "-")
        two(day, at: 8)
        out[10] = UInt8(ascii: "T")
        two(time / 3_600_000, at: 11)
        out[13] = UInt8(ascii: ":")
        two(time / 60_000 % 60, at: 14)
        out[16] = UInt8(ascii: ":")
        two(time / 1000 % 60, at: 17)
        out[19] = UInt8(ascii: ".")
        out[20] = UInt8(ascii: "0") + UInt8(time % 1000 / 100)
        two(time % 100, at: 21)
        out[23] = UInt8(ascii: "Z")
        return Self.formattedCount
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.f…]Z` (fraction digits past the third are truncated). Nil
    /// for anything else, including other offsets than `Z`.
    public static func parse(_ text: String) -> Int64? {
        var text = text
        return text.withUTF8 { Self.parse(bytes: $0) }
    }

    static func parse(bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard bytes.count >= 20, bytes.count <= 40, bytes[bytes.count - 1] == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for index in range {
                let byte = bytes[index]
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
            let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), (1...Self.daysIn(month: month, year: year)).contains(day),
            hour < 24, minute < 60, second < 60
        else { return nil }
        var millis: Int64 = 0
        if bytes.count > 20 {
            let digitCount = bytes.count - 21
            guard bytes[19] == UInt8(ascii: "."), digitCount > 0, let fraction = number(20..<(20 + min(digitCount, 3))),
                number(20..<(bytes.count - 1)) != nil
            else { return nil }
            millis = fraction
            if digitCount < 3 {
                for _ in digitCount..<3 { millis *= 10 }
            }
        }
        let days = Int64(CivilDate.toDays(year: Int(year), month: Int(month), day: Int(day)))
        return days * 86_400_000 + ((hour * 60 + minute) * 60 + second) * 1000 + millis
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        let quotient = value >= 0 ? value / divisor : (value - divisor + 1) / divisor
        return (quotient, value - quotient * divisor)
    }
}
