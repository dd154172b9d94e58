import TextCoding

/// A parsed `redis://[[user]:password@]host[:port][/db]` address; `rediss://` is the same
/// over TLS.
///
/// `description` redacts the password, so a `RedisURL` is safe to log or interpolate.
public struct RedisURL: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int = 6379
    /// ACL user (Redis 6+); sent as `AUTH user password` when set with a password.
    public var username: String?
    public var password: String?
    public var database: Int = 0
    /// `rediss://`: the connection speaks TLS (see `RedisTLSContext`).
    public var tls: Bool = false

    public init(
        host: String, port: Int = 6379, username: String? = nil, password: String? = nil, database: Int = 0, tls: Bool = false
    ) {
        self.tls = tls
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database
    }

    /// Parses `redis://[[user]:password@]host[:port][/db]` (or `rediss://`); user and password may be
    /// percent-encoded, an IPv6 host goes in brackets. Anything else throws
    /// `RedisError.invalidURL` with a message that never contains the password.
    public init(parsing text: String) throws {
        // Error messages describe the problem only: echoing any part of a malformed URL
        // could leak the password.
        func invalid(_ reason: String) -> RedisError {
            .invalidURL("REDIS_URL is invalid (\(reason)); expected redis[s]://[[user]:password@]host[:port][/db]")
        }
        let lowercased = text.lowercased()
        let tls = lowercased.hasPrefix("rediss://")
        guard tls || lowercased.hasPrefix("redis://") else { throw invalid("scheme must be redis:// or rediss://") }
        var rest = Substring(text.dropFirst(tls ? 9 : 8))

        var username: String?
        var password: String?
        // The last `@` ends the credentials, so a password may hold unencoded `/`, `:` or `#`.
        if let at = rest.lastIndex(of: "@") {
            let userInfo = rest[..<at]
            rest = rest[rest.index(after: at)...]
            let user: Substring
            let pass: Substring
            if let colon = userInfo.firstIndex(of: ":") {
                user = userInfo[..<colon]
                pass = userInfo[userInfo.index(after: colon)...]
            } else {
                // `redis://secret@host`: a lone user-info part is the password, as redis-cli reads it.
                user = ""
                pass = userInfo
            }
            guard let decodedUser = PercentDecoding.decode(user), let decodedPass = PercentDecoding.decode(pass) else {
                throw invalid("bad percent-encoding in the credentials")
            }
            username = decodedUser.isEmpty ? nil : decodedUser
            password = decodedPass.isEmpty ? nil : decodedPass
        }
        if rest.contains("?") || rest.contains("#") { throw invalid("query and fragment are not supported") }

        var path: Substring = ""
        if let slash = rest.firstIndex(of: "/") {
            path = rest[rest.index(after: slash)...]
            rest = rest[..<slash]
        }
        let host: Substring
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw invalid("unterminated IPv6 host") }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw invalid("bad text after the IPv6 host") }
                portText = after.dropFirst()
            }
        } else if let colon = rest.firstIndex(of: ":") {
            host = rest[..<colon]
            portText = rest[rest.index(after: colon)...]
        } else {
            host = rest
        }
        guard !host.isEmpty, !host.contains(where: { $0.isWhitespace }) else { throw invalid("missing host") }
        var port = 6379
        if let portText {
            guard portText.allSatisfy({ $0.isASCII && $0.isNumber }), let parsed = Int(portText), (1...65535).contains(parsed)
            else { throw invalid("port must be 1...65535") }
            port = parsed
        }
        var database = 0
        if !path.isEmpty {
            guard path.allSatisfy({ $0.isASCII && $0.isNumber }), let parsed = Int(path) else {
                throw invalid("database must be a non-negative number")
            }
            database = parsed
        }
        self.init(host: String(host), port: port, username: username, password: password, database: database, tls: tls)
    }

    public var description: String {
        let credentials: String
        switch (username, password) {
        case (let user?, _?): credentials = "\(user):***@"
        case (nil, _?): credentials = ":***@"
        case (let user?, nil): credentials = "\(user)@"
        case (nil, nil): credentials = ""
        }
        let hostText = host.contains(":") ? "[\(host)]" : host
        return "\(tls ? "rediss" : "redis")://\(credentials)\(hostText):\(port)/\(database)"
    }
}
