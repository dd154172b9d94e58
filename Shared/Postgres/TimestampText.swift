import FoundationEssentials
import TextCoding

/// Converts `Date` to and from Postgres' ISO text form (`2024-05-01 12:30:00.123456+00`),
/// with microsecond precision and no Foundation formatters (they are slow and locale-bound).
enum TimestampText {
    private static let secondsFrom1970To2001: Int64 = 978_307_200

    /// `date` in UTC, e.g. `2024-05-01 12:30:00.123456+00`.
    static func format(_ date: Date) -> String {
        let reference = date.timeIntervalSinceReferenceDate
        guard reference.isFinite, abs(reference) < 200_000_000_000 else {
            return reference < 0 ? "-infinity" : "infinity"
        }
        var whole = reference.rounded(.down)
        var micros = ((reference - whole) * 1_000_000).rounded()
        if micros >= 1_000_000 {
            whole += 1
            micros -= 1_000_000
        }
        let epochSeconds = Int64(whole) + secondsFrom1970To2001
        let (days, secondOfDay) = epochSeconds.dividedRoundingDown(by: 86_400)
        let (year, month, day) = CivilDate.fromDays(Int(days))
        var text = ""
        text.reserveCapacity(32)
        text += pad(year <= 0 ? 1 - year : year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2)
        text += " " + pad(Int(secondOfDay / 3600), 2) + ":" + pad(Int(secondOfDay % 3600 / 60), 2)
        text += ":" + pad(Int(secondOfDay % 60), 2) + "." + pad(Int(micros), 6) + "+00"
        if year <= 0 { text += " BC" }
        return text
    }

    /// Parses `timestamptz`, `timestamp` (read as UTC) and `date` output; nil if malformed.
    static func parse(_ text: String) -> Date? {
        switch text {
        case "infinity": return .distantFuture
        case "-infinity": return .distantPast
        default: break
        }
        var scanner = DigitScanner(Array(text.utf8))
        guard let year = scanner.number(minDigits: 4, maxDigits: 7), scanner.skip("-"),
            let month = scanner.number(digits: 2), (1...12).contains(month), scanner.skip("-"),
            let day = scanner.number(digits: 2), (1...31).contains(day)
        else { return nil }
        var secondOfDay: Int64 = 0
        var micros: Int64 = 0
        var offset: Int64 = 0
        if scanner.skip(" ") || scanner.skip("T") {
            guard let hour = scanner.number(digits: 2), hour <= 24, scanner.skip(":"),
                let minute = scanner.number(digits: 2), minute < 60, scanner.skip(":"),
                let second = scanner.number(digits: 2), second <= 60
            else { return nil }
            secondOfDay = Int64(hour * 3600 + minute * 60 + second)
            if scanner.skip(".") {
                guard let fraction = scanner.fraction(maxDigits: 6) else { return nil }
                micros = fraction
            }
            if let sign = scanner.sign() {
                guard let hours = scanner.number(digits: 2) else { return nil }
                var seconds = hours * 3600
                if scanner.skip(":") {
                    guard let minutes = scanner.number(digits: 2) else { return nil }
                    seconds += minutes * 60
                    if scanner.skip(":") {
                        guard let extra = scanner.number(digits: 2) else { return nil }
                        seconds += extra
                    }
                }
                offset = Int64(sign * seconds)
            }
        }
        let isBC = scanner.skip(" BC")
        guard scanner.isAtEnd else { return nil }
        let days = CivilDate.toDays(year: isBC ? 1 - year : year, month: month, day: day)
        let epochSeconds = Int64(days) * 86_400 + secondOfDay - offset
        let reference = Double(epochSeconds - secondsFrom1970To2001) + Double(micros) / 1_000_000
        return Date(timeIntervalSinceReferenceDate: reference)
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
