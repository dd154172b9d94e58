/// `htu` as RFC 9449 section 4.3 compares it: the URL without its query and fragment, after
/// RFC 3986's syntax- and scheme-based normalization as far as a URL the client built from the
/// one it called needs it: scheme and host in lower case, the scheme's default port left out,
/// an empty path as `/`. The path is compared as written (percent-encoding included).
public enum DPoPTargetURI {
    /// The normalized `http` or `https` URL; nil for anything else.
    public static func normalized(_ text: String) -> String? {
        let utf8 = text.utf8
        let end = utf8.firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? utf8.endIndex
        let url = text[..<end]
        guard let colon = url.firstIndex(of: ":"), url[colon...].hasPrefix("://") else { return nil }
        let scheme = url[..<colon].lowercased()
        let defaultPort: Substring
        switch scheme {
        case "https": defaultPort = "443"
        case "http": defaultPort = "80"
        default: return nil
        }
        let rest = url[url.index(colon, offsetBy: 3)...]
        let pathStart = rest.firstIndex(of: "/") ?? rest.endIndex
        var authority = rest[..<pathStart].lowercased()[...]
        guard !authority.isEmpty, !authority.contains("@") else { return nil }
        // A port after the host (after the `]` of an IPv6 literal).
        if let colon = authority.lastIndex(of: ":"), !authority[colon...].contains("]") {
            let port = authority[authority.index(after: colon)...]
            if port == defaultPort || port.isEmpty { authority = authority[..<colon] }
        }
        let path = rest[pathStart...]
        return scheme + "://" + authority + (path.isEmpty ? "/" : path)
    }
}
