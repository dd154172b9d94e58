import FoundationEssentials
import TextCoding

/// The part of a `Cache-Control` header the JWKS cache honours: how long a response stays fresh.
enum CacheControl {
    /// `max-age` in seconds; 0 for `no-cache` / `no-store`; nil when the header says nothing.
    static func maxAge(_ header: String?) -> TimeInterval? {
        guard let header else { return nil }
        var result: TimeInterval?
        for directive in header.split(separator: ",") {
            let parts = directive.trimmingWhitespace().lowercased().split(separator: "=", maxSplits: 1)
            switch parts.first {
            case "no-cache", "no-store":
                return 0
            case "max-age":
                if parts.count == 2, let seconds = Int(parts[1].trimming(where: { $0 == "\"" || $0 == " " })), seconds >= 0 {
                    result = TimeInterval(seconds)
                }
            default:
                continue
            }
        }
        return result
    }
}
