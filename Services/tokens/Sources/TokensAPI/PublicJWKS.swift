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

