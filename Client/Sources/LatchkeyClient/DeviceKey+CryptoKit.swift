#if canImport(CryptoKit)
import CryptoKit
import Foundation

/// A P-256 device key through CryptoKit: in the Secure Enclave where the device has one (the
/// private key never leaves it; what is stored is a handle only this device's enclave can
/// use), else a software key.
// Unchecked: CryptoKit's keys are immutable values, but not every SDK marks them Sendable.
struct CryptoKitDeviceKey: DeviceKey, @unchecked Sendable {
    enum Key {
        case secureEnclave(SecureEnclave.P256.Signing.PrivateKey)
        case software(P256.Signing.PrivateKey)
    }

    let key: Key

    var publicKeyCoordinates: Data {
        switch self.key {
        case .secureEnclave(let key): key.publicKey.rawRepresentation
        case .software(let key): key.publicKey.rawRepresentation
        }
    }

    func signature(for data: Data) throws -> Data {
        switch self.key {
        case .secureEnclave(let key): try key.signature(for: data).rawRepresentation
        case .software(let key): try key.signature(for: data).rawRepresentation
        }
    }

    /// A new key: in the Secure Enclave when there is one.
    static func make() throws -> CryptoKitDeviceKey {
        if SecureEnclave.isAvailable {
            return CryptoKitDeviceKey(key: .secureEnclave(try SecureEnclave.P256.Signing.PrivateKey()))
        }
        return CryptoKitDeviceKey(key: .software(P256.Signing.PrivateKey()))
    }

    /// What is stored: a tag byte (`E` an enclave handle, `S` a software key) and the key's
    /// data representation.
    var stored: Data {
        switch self.key {
        case .secureEnclave(let key): Data("E".utf8) + key.dataRepresentation
        case .software(let key): Data("S".utf8) + key.rawRepresentation
        }
    }

    init(key: Key) {
        self.key = key
    }

    init(stored: Data) throws {
        guard let tag = stored.first else { throw DeviceKeyError.cryptoFailure("empty stored key") }
        let data = stored.dropFirst()
        switch tag {
        case UInt8(ascii: "E"): self.key = .secureEnclave(try SecureEnclave.P256.Signing.PrivateKey(dataRepresentation: data))
        case UInt8(ascii: "S"): self.key = .software(try P256.Signing.PrivateKey(rawRepresentation: data))
        default: throw DeviceKeyError.cryptoFailure("unknown stored key")
        }
    }

    /// The key in `file` (0600), made and written there first when there is none (by one
    /// process only, when several make it at once).
    static func stored(in file: URL) throws -> CryptoKitDeviceKey {
        if let data = try PrivateFile.read(file) { return try CryptoKitDeviceKey(stored: data) }
        let key = try CryptoKitDeviceKey.make()
        if try PrivateFile.create(key.stored, at: file) { return key }
        return try CryptoKitDeviceKey(stored: try PrivateFile.read(file) ?? key.stored)
    }
}
#endif
