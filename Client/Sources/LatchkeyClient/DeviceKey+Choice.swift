import Foundation

#if canImport(CryptoKit)
/// The platform's own device key: CryptoKit (the Secure Enclave where there is one).
typealias PlatformDeviceKey = CryptoKitDeviceKey
#else
/// The platform's own device key: OpenSSL's, in software.
typealias PlatformDeviceKey = SoftwareDeviceKey
#endif

extension PlatformDeviceKey {
    /// A new key that lives as long as the process.
    static func ephemeral() throws -> PlatformDeviceKey {
        #if canImport(CryptoKit)
        try CryptoKitDeviceKey.make()
        #else
        try SoftwareDeviceKey()
        #endif
    }
}

extension LatchkeyClient.Configuration.DeviceKeyChoice {
    /// The proofs the choice makes with `store`'s tokens; nil for bearer sessions.
    func proofs(with store: any TokenStore) -> DPoPProofs? {
        switch self {
        case .none:
            return nil
        case .custom(let key):
            return DPoPProofs { key }
        case .automatic:
            if let file = store as? FileTokenStore {
                let keyFile = file.file.deletingLastPathComponent().appendingPathComponent(file.file.lastPathComponent + ".dpop-key")
                return DPoPProofs { try PlatformDeviceKey.stored(in: keyFile) }
            }
            #if canImport(Security)
            if let keychain = store as? KeychainTokenStore {
                let item = KeychainDeviceKeyItem(beside: keychain)
                return DPoPProofs { try item.key() }
            }
            #endif
            if store is InMemoryTokenStore {
                return DPoPProofs { try PlatformDeviceKey.ephemeral() }
            }
            return nil
        }
    }
}
