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

    /// Writes `format(milliseconds)` as a JSON string (in quotes) to `json`, without a `String`.
    public static func writeQuoted(_ milliseconds: Int64, to json: inout JSONBytes) {
        json.write(atMost: Self.formattedCount + 2) { out in
            out[0] = UInt8(ascii: "\"")
            let count = Self.write(milliseconds, to: UnsafeMutableRawBufferPointer(rebasing: out[1...]))
            out[count + 1] = UInt8(ascii: "\"")
            return count + 2
        }
    }

    /// Writes what `format` returns into the first `formattedCount` bytes of `out`, without a
    /// `String` in between (a page of results holds hundreds of times); returns the count.
    public static func write(_ milliseconds: Int64, to out: UnsafeMutableRawBufferPointer) -> Int {
        precondition(out.count >= Self.formattedCount)
        let (days, msOfDay) = milliseconds.dividedRoundingDown(by: 86_400_000)
        let (year, month, day) = CivilDate.fromDays(Int(days))
        // Unsigned, narrow and constant divisors: each division is a multiplication.
        let time = UInt32(truncatingIfNeeded: msOfDay)
        let base = out.baseAddress!
        func two(_ value: UInt32, at offset: Int) {
            let pair = Self.digitPairs[Int(value)]
            (base + offset).storeBytes(of: pair, as: UInt16.self)
        }
        let y = UInt32(truncatingIfNeeded: year) % 10_000
        two(y / 100, at: 0)
        two(y % 100, at: 2)
        base.storeBytes(of: UInt8(ascii: "-"), toByteOffset: 4, as: UInt8.self)
        two(UInt32(truncatingIfNeeded: month), at: 5)
        base.storeBytes(of: UInt8(ascii: "-"), toByteOffset: 7, as: UInt8.self)
        two(UInt32(truncatingIfNeeded: day), at: 8)
        base.storeBytes(of: UInt8(ascii: "T"), toByteOffset: 10, as: UInt8.self)
        let seconds = time / 1000
        let minutes = seconds / 60
        two(minutes / 60, at: 11)
        base.storeBytes(of: UInt8(ascii: ":"), toByteOffset: 13, as: UInt8.self)
        two(minutes % 60, at: 14)
        base.storeBytes(of: UInt8(ascii: ":"), toByteOffset: 16, as: UInt8.self)
        two(seconds % 60, at: 17)
        base.storeBytes(of: UInt8(ascii: "."), toByteOffset: 19, as: UInt8.self)
        let millis = time % 1000
        base.storeBytes(of: UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: millis / 100), toByteOffset: 20, as: UInt8.self)
        two(millis % 100, at: 21)
        base.storeBytes(of: UInt8(ascii: "Z"), toByteOffset: 23, as: UInt8.self)
        return Self.formattedCount
    }

    /// "00" to "99", each two ASCII digits as they lie in memory.
    private static let digitPairs: [UInt16] = (0..<100).map { value in
        UInt16(UInt8(ascii: "0") + UInt8(value / 10)) | UInt16(UInt8(ascii: "0") + UInt8(value % 10)) << 8
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
}
