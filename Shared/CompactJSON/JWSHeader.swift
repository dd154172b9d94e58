import TextCoding

/// The members of a signed token's header (RFC 7515, the first segment of a compact JWS) that
/// pick the key to verify it with: `kid`, and `alg`, which the key is pinned to. Identity reads
/// them from every provider token before JWTKit verifies it, and the gateway reads `kid` from an
/// access token it has not seen. Read by hand in the plain spelling (`CompactJSONReadable`:
/// both strings or absent, each at most once); `Decodable` reads any other.
public struct JWSHeader: CompactJSONReadable, Decodable, Equatable, Sendable {
    public var kid: String?
    public var alg: String?

    public init(kid: String?, alg: String?) {
        self.kid = kid
        self.alg = alg
    }

    public init(reading parser: inout CompactJSONParser) throws {
        var kid: String?
        var alg: String?
        try parser.readObject { key, parser in
            switch key {
            case "kid": kid = try parser.readString()
            case "alg": alg = try parser.readString()
            default: try parser.skipValue()
            }
        }
        self.init(kid: kid, alg: alg)
    }

    /// The header of `token` as its own reader reads it; nil when `token` has no second
    /// segment, its first is not canonical unpadded base64url, or the header is not in the plain
    /// spelling (then a JSON decoder must read it, or refuse it).
    public init?(plainHeaderOf token: String) {
        let utf8 = token.utf8
        guard let dot = utf8.firstIndex(of: UInt8(ascii: ".")),
            let bytes = Base64URL.decode(String(token[..<dot])),
            let header = bytes.withUnsafeBytes({ try? CompactJSONDecoder.readWhole(JWSHeader.self, from: $0) })
        else { return nil }
        self = header
    }
}
