/// A JWS algorithm the service signs with; each goes with one key type.
public enum SigningAlgorithm: String, Sendable, CaseIterable {
    case rs256
    case es256
    case eddsa

    /// The `alg` header value.
    public var jwsName: String {
        switch self {
        case .rs256: "RS256"
        case .es256: "ES256"
        case .eddsa: "EdDSA"
        }
    }
}
