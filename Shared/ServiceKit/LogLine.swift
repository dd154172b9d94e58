#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization
import TextCoding

/// The pieces of a log line, built into bytes without Foundation: the gateway writes one line
/// per request at the default level, and `Date.formatted` plus `JSONSerialization` cost more
/// CPU than the rest of a cached read.
enum LogLine {
    /// The current UTC time as ISO 8601, `2026-11-25T07:42:13Z`, or with milliseconds
    /// (`2026-11-25T07:42:13.295Z`).
    static func appendTime(to line: inout [UInt8], milliseconds: Bool, now: timespec = LogLine.now()) {
        line.append(contentsOf: self.dateAndTimeOfDay(now.tv_sec))
        if milliseconds {
            line.append(UInt8(ascii: "."))
            appendDigits(Int(now.tv_nsec) / 1_000_000, 3, to: &line)
        }
        line.append(UInt8(ascii: "Z"))
    }

    /// The second last formatted: a busy process writes many lines a second, and `gmtime_r`
    /// (which takes glibc's time zone lock) was about a seventh of a request line's cost.
    private static let lastSecond = Mutex<(seconds: Int, text: [UInt8])>((Int.min, []))

    /// `2026-11-25T07:42:13` for `seconds` since 1970.
    private static func dateAndTimeOfDay(_ seconds: Int) -> [UInt8] {
        if let cached = lastSecond.withLock({ $0.seconds == seconds ? $0.text : nil }) { return cached }
        var time = seconds
        var parts = tm()
        gmtime_r(&time, &parts)
        var text: [UInt8] = []
        text.reserveCapacity(19)
        appendDigits(Int(parts.tm_year) + 1900, 4, to: &text)
        text.append(UInt8(ascii: "-"))
        appendDigits(Int(parts.tm_mon) + 1, 2, to: &text)
        text.append(UInt8(ascii: "-"))
        appendDigits(Int(parts.tm_mday), 2, to: &text)
        text.append(UInt8(ascii: "T"))
        appendDigits(Int(parts.tm_hour), 2, to: &text)
        text.append(UInt8(ascii: ":"))
        appendDigits(Int(parts.tm_min), 2, to: &text)
        text.append(UInt8(ascii: ":"))
        appendDigits(Int(parts.tm_sec), 2, to: &text)
        lastSecond.withLock { $0 = (seconds, text) }
        return text
    }

    static func now() -> timespec {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return now
    }

    private static func appendDigits(_ value: Int, _ count: Int, to line: inout [UInt8]) {
        var divisor = 1
        for _ in 1..<count { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            line.append(UInt8(ascii: "0") + UInt8(rest / divisor % 10))
            rest %= divisor
            divisor /= 10
        }
    }

    /// `text` as a JSON string, quotes included (`JSONString`).
    static func appendJSONString(_ text: String, to line: inout [UInt8]) {
        JSONString.write(text, to: &line)
    }

    /// Writes all of `bytes` to `descriptor` (one `write` unless the kernel takes less).
    static func write(_ bytes: [UInt8], to descriptor: Int32) {
        bytes.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
    }
}
