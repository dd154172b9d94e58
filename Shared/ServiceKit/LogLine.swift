#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TextCoding

/// The pieces of a log line, built into bytes without Foundation: the gateway writes one line
/// per request at the default level, and `Date.formatted` plus `JSONSerialization` cost more
/// CPU than the rest of a cached read.
enum LogLine {
    /// The current UTC time as ISO 8601, `2026-11-25T07:42:13Z`, or with milliseconds
    /// (`2026-11-25T07:42:13.295Z`).
    static func appendTime(to line: inout [UInt8], milliseconds: Bool, now: timespec = LogLine.now()) {
        var seconds = now.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        appendDigits(Int(parts.tm_year) + 1900, 4, to: &line)
        line.append(UInt8(ascii: "-"))
        appendDigits(Int(parts.tm_mon) + 1, 2, to: &line)
        line.append(UInt8(ascii: "-"))
        appendDigits(Int(parts.tm_mday), 2, to: &line)
        line.append(UInt8(ascii: "T"))
        appendDigits(Int(parts.tm_hour), 2, to: &line)
        line.append(UInt8(ascii: ":"))
        appendDigits(Int(parts.tm_min), 2, to: &line)
        line.append(UInt8(ascii: ":"))
        appendDigits(Int(parts.tm_sec), 2, to: &line)
        if milliseconds {
            line.append(UInt8(ascii: "."))
            appendDigits(Int(now.tv_nsec) / 1_000_000, 3, to: &line)
        }
        line.append(UInt8(ascii: "Z"))
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
