import TextCoding

/// The rules of RFC 7515, 7519 and 8725 a signed token (compact JWS) must keep besides its
/// signature, checked before any reader of the system reads it (the gateway's and `tokens`'
/// access-token checks, identity's provider tokens and Apple notifications), so that two
/// parsers can never read one token two ways:
/// - three segments, the header and the claims each one JSON object, strictly parsed, with no
///   member name twice at any depth (after escapes are decoded; RFC 7519 §4 allows refusing);
/// - `crit` (RFC 7515 §4.1.11), when present, a non-empty list of distinct names present in the
///   header, none a name the RFC defines, each one the reader understands (none, so far);
/// - `exp`, `iat` and `nbf`, when present, whole numbers of seconds from 0 to the end of year
///   9999 (no fractions, exponents, strings or sizes no date holds);
/// - `nbf` no later than now plus the reader's leeway (RFC 7519 §4.1.5).
/// Whether `exp` and `iat` must be present, and `exp`'s own check, are each reader's.
public enum SignedTokenRules {
    /// What a token breaks; a reader refuses the token, with its own error.
    public enum Violation: Error, Equatable, Sendable, CustomStringConvertible {
        /// Not three base64url segments.
        case notCompact
        /// The header or claims are not one strictly parsed JSON object (a repeated member
        /// name among the causes).
        case notAnObject(part: String)
        /// `crit` names an extension the reader does not understand, or is malformed.
        case critical(String)
        /// A time claim that is not a whole number of seconds in range.
        case time(claim: String)
        /// `nbf` is in the future beyond the leeway.
        case notYetValid

        public var description: String {
            switch self {
            case .notCompact: "not a compact JWS"
            case .notAnObject(let part): "the \(part) is not one JSON object with distinct member names"
            case .critical(let reason): "crit: \(reason)"
            case .time(let claim): "\(claim) is not a whole number of seconds in range"
            case .notYetValid: "nbf is in the future"
            }
        }
    }

    /// The latest time claim accepted: 9999-12-31T23:59:59Z.
    public static let latestTime: Int64 = 253_402_300_799
    /// Header parameters RFC 7515 §4.1 defines, which `crit` must not name.
    static let registeredHeaderNames: Set<String> = [
        "alg", "jku", "jwk", "kid", "x5u", "x5c", "x5t", "x5t#S256", "typ", "cty", "crit",
    ]

    /// Checks `token` at `now` (Unix seconds) with `leeway` seconds for `nbf`; `understood`
    /// names the `crit` extensions the caller processes.
    public static func check(_ token: String, now: Double, leeway: Double, understood: Set<String> = []) throws(Violation) {
        _ = try Self.parse(token, now: now, leeway: leeway, understood: understood)
    }

    /// A compact JWS that keeps the rules, in parts: for a reader that goes on to read the
    /// header and claims itself (a DPoP proof), so that they are parsed once.
    public struct Parts: Sendable {
        /// The header's members, each name once.
        public var header: [String: CompactJSONNode]
        /// The claims' members, each name once.
        public var claims: [String: CompactJSONNode]
        /// The first two segments and the dot between them: what the signature signs.
        public var signingInput: Substring
        /// The third segment, not decoded.
        public var signature: Substring
    }

    /// `check`, returning what it read.
    public static func parse(_ token: String, now: Double, leeway: Double, understood: Set<String> = []) throws(Violation) -> Parts {
        let segments = token.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard segments.count == 3 else { throw .notCompact }
        guard let headerBytes = Base64URL.decode(String(Substring(segments[0]))),
            let claimsBytes = Base64URL.decode(String(Substring(segments[1])))
        else { throw .notCompact }
        let header = try Self.object(headerBytes, part: "header")
        let claims = try Self.object(claimsBytes, part: "claims")
        try Self.checkCritical(header, understood: understood)
        for name in ["exp", "iat", "nbf"] {
            guard let value = claims[name] else { continue }
            guard case .number(let text) = value, let seconds = Self.wholeSeconds(text) else { throw .time(claim: name) }
            if name == "nbf", Double(seconds) > now + leeway { throw .notYetValid }
        }
        return Parts(
            header: header, claims: claims, signingInput: token[segments[0].startIndex..<segments[1].endIndex],
            signature: Substring(segments[2]))
    }

    /// The members of a JSON object, each name once at every depth (CompactJSONParser refuses a
    /// repeated name, an invalid string or number, and anything after the value).
    static func object(_ bytes: [UInt8], part: String) throws(Violation) -> [String: CompactJSONNode] {
        let node: CompactJSONNode
        do {
            node = try bytes.withUnsafeBytes { buffer in
                var parser = CompactJSONParser(buffer)
                return try parser.document()
            }
        } catch {
            throw .notAnObject(part: part)
        }
        guard case .object(let keys, let values) = node else { throw .notAnObject(part: part) }
        return Dictionary(uniqueKeysWithValues: zip(keys, values))
    }

    static func checkCritical(_ header: [String: CompactJSONNode], understood: Set<String>) throws(Violation) {
        guard let critical = header["crit"] else { return }
        guard case .array(let elements) = critical, !elements.isEmpty else { throw .critical("not a non-empty list") }
        var names: Set<String> = []
        for element in elements {
            guard case .string(let name) = element, !name.isEmpty else { throw .critical("not a list of names") }
            guard names.insert(name).inserted else { throw .critical("\(name) named twice") }
            guard !Self.registeredHeaderNames.contains(name) else { throw .critical("\(name) is defined by RFC 7515") }
            guard header[name] != nil else { throw .critical("\(name) is not in the header") }
            guard understood.contains(name) else { throw .critical("\(name) is not understood") }
        }
    }

    /// A NumericDate written as a whole number of seconds within range: digits only (no sign,
    /// fraction or exponent), at most `latestTime`.
    public static func wholeSeconds(_ text: String) -> Int64? {
        guard !text.isEmpty, text.utf8.count <= 12, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            let value = Int64(text), value <= Self.latestTime
        else { return nil }
        return value
    }
}
