/// A public key as a JSON Web Key (RFC 7517), the shape the `jwks` method returns.
public struct PublicJWK: Codable, Sendable, Hashable {
    public var kty: String
    public var kid: String?
    public var use: String?
    public var alg: String?
    /// RSA modulus and exponent.
    public var n: String?
    public var e: String?
    /// EC / OKP curve and coordinates.
    public var crv: String?
    public var x: String?
    public var y: String?

    public init(
        kty: String, kid: String? = nil, use: String? = nil, alg: String? = nil, n: String? = nil, e: String? = nil,
        crv: String? = nil, x: String? = nil, y: String? = nil
    ) {
        self.kty = kty
        self.kid = kid
        self.use = use
        self.alg = alg
        self.n = n
        self.e = e
        self.crv = crv
        self.x = x
        self.y = y
    }
}

/// The JWK Set document: `{"keys":[...]}`.
public struct PublicJWKS: Codable, Sendable, Hashable {
    public var keys: [PublicJWK]

    public init(keys: [PublicJWK]) {
        self.keys = keys
    }
}


extension PublicJWKS {
    /// The key sets several `tokens` replicas publish, as one: every key any of them has
    /// (once, by `kid`), in the order of the set with the most keys first. During a rotation a
    /// replica that has read the new key lists it before a replica that has not yet.
    public static func merging(_ sets: [PublicJWKS]) -> PublicJWKS {
        var seen: Set<String> = []
        var keys: [PublicJWK] = []
        for set in sets.sorted(by: { $0.keys.count > $1.keys.count }) {
            for key in set.keys where seen.insert(key.kid ?? "\(key)").inserted {
                keys.append(key)
            }
        }
        return PublicJWKS(keys: keys)
    }
}
