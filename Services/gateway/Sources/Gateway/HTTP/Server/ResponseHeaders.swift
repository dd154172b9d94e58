import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import HTTPTypes
import Synchronization

/// The headers the public server adds to every response, as Hummingbird's `Application` did:
/// `Date` (RFC 9110's IMF-fixdate, formatted once a second) and `Server`.
final class ResponseHeaders: Sendable {
    private let serverName: String?
    /// The last second formatted, and its text.
    private let date = Mutex<(second: Int, text: String)>((-1, ""))

    init(serverName: String?) {
        self.serverName = serverName
    }

    func add(to fields: inout HTTPFields) {
        fields[.date] = self.currentDate()
        if let serverName { fields[.server] = serverName }
    }

    /// Now, as `Sun, 06 Nov 1994 08:49:37 GMT`.
    func currentDate() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let second = now.tv_sec
        return self.date.withLock { cached in
            if cached.second != second {
                cached = (second, Self.imfFixdate(secondsSince1970: second))
            }
            return cached.text
        }
    }

    static func imfFixdate(secondsSince1970 seconds: Int) -> String {
        var time = seconds
        var parts = tm()
        gmtime_r(&time, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
