import CompactJSON
import Crypto
import TextCoding

/// The public key a DPoP proof carries in its header's `jwk` (RFC 9449 section 4.2): a P-256
/// key (`kty` EC, `crv` P-256, `x` and `y` of 32 bytes each, canonical base64url), never a
/// private one (`d` is refused outright: a client that sends it has leaked its key), and its
/// RFC 7638 thumbprint, the `jkt` a session is bound to.
public struct DPoPPublicKey: Sendable {
    public let key: P256.Signing.PublicKey
    /// The RFC 7638 SHA-256 thumbprint, base64url: what `cnf.jkt` holds.
    public let thumbprint: String

    /// The key of a `jwk` header member.
    public init(jwk node: CompactJSONNode) throws(DPoPProofError) {
        guard case .object(let names, let values) = node else { throw .badKey("not an object") }
        let members = Dictionary(zip(names, values)) { first, _ in first }
        guard members["d"] == nil else { throw .badKey("holds a private key (d)") }
        guard case .string("EC")? = members["kty"] else { throw .badKey("kty is not EC") }
        guard case .string("P-256")? = members["crv"] else { throw .badKey("crv is not P-256") }
        guard case .string(let x)? = members["x"], case .string(let y)? = members["y"],
            let xBytes = Base64URL.decode(x), let yBytes = Base64URL.decode(y), xBytes.count == 32, yBytes.count == 32
        else { throw .badKey("x and y are not 32-byte coordinates") }
        do {
            self.key = try P256.Signing.PublicKey(rawRepresentation: xBytes + yBytes)
        } catch {
            throw .badKey("not a point on P-256")
        }
        self.thumbprint = Self.thumbprint(x: x, y: y)
    }

    /// RFC 7638: SHA-256 of the required members in lexicographic order, no whitespace
    /// (`x` and `y` are canonical base64url here, so they need no escaping).
    public static func thumbprint(x: String, y: String) -> String {
        let json = #"{"crv":"P-256","kty":"EC","x":""# + x + #"","y":""# + y + #""}"#
        return Base64URL.encode(SHA256.hash(data: Array(json.utf8)))
    }
}
