import FoundationEssentials

/// Times on the wire, in every service's params and results and the public API: RFC 3339 in
/// UTC with milliseconds, e.g. `2026-11-22T10:04:05.123Z`. The one implementation of the
/// project's servers (`RFC3339Milliseconds` does the arithmetic; the client library, a package
/// of its own, has its own).
public enum RFC3339 {
    /// Milliseconds are kept, finer digits dropped (rounded to the microsecond first, so that a
    /// time read from this form is written back exactly).
    public static func format(_ date: Date) -> String {
        guard let milliseconds = Self.milliseconds(date) else {
            return date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt))
        }
        return RFC3339Milliseconds.format(milliseconds)
    }

    /// `format(date)` as a JSON string, written in place where it can be (a hand-written
    /// message's times).
    public static func writeJSON(_ date: Date, to json: inout JSONBytes) {
        guard let milliseconds = Self.milliseconds(date) else {
            JSONString.write(Self.format(date), to: &json)
            return
        }
        RFC3339Milliseconds.writeQuoted(milliseconds, to: &json)
    }

    /// The whole milliseconds `format` writes (the time rounded to the microsecond, then
    /// floored); nil beyond `Int64`'s microseconds.
    private static func milliseconds(_ date: Date) -> Int64? {
        let microseconds = (date.timeIntervalSince1970 * 1_000_000).rounded()
        guard let exact = Int64(exactly: microseconds) else { return nil }
        return exact.dividedRoundingDown(by: 1000).quotient
    }

    /// `…Z` times by integer arithmetic; any other offset through Foundation.
    public static func parse(_ text: String) -> Date? {
        if let milliseconds = RFC3339Milliseconds.parse(text) {
            return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        }
        return (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt).parse(text))
            ?? (try? Date.ISO8601FormatStyle(timeZone: .gmt).parse(text))
    }
}
