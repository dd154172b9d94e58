import JWTKit

/// The published keys of one provider. The newest key signs; `rotate` adds a new one and
/// optionally withdraws the old ones, as a provider does when it rolls its keys.
struct MockKeyRing: Sendable {
    private(set) var keys: [MockSigningKey]
    let kidPrefix: String

    init(kidPrefix: String) throws {
        self.kidPrefix = kidPrefix
        self.keys = [try MockSigningKey.reused(kidPrefix: kidPrefix)]
    }

    var active: MockSigningKey { self.keys[self.keys.count - 1] }

    /// Adds a fresh signing key; with `retiringOld` the previous keys leave the JWKS.
    mutating func rotate(retiringOld: Bool) throws -> MockSigningKey {
        let key = try MockSigningKey.generate(kidPrefix: self.kidPrefix)
        if retiringOld { self.keys.removeAll() }
        self.keys.append(key)
        return key
    }

    /// The JWKS document: `{"keys":[...]}`.
    func jwks() throws -> [String: [[String: String]]] {
        ["keys": try self.keys.map { try $0.publicJWK() }]
    }
}
