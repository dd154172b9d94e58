#if !canImport(CryptoKit)
import CLatchkeyOpenSSL
import Foundation

/// A software P-256 device key where there is no CryptoKit (Linux): OpenSSL's libcrypto,
/// kept as PKCS#8 DER in a file only its owner can read (0600) beside the stored tokens.
final class SoftwareDeviceKey: DeviceKey, @unchecked Sendable {
    // Immutable after init; OpenSSL's EVP_PKEY may be used from several threads for signing.
    private let key: OpaquePointer
    let publicKeyCoordinates: Data

    private init(key: OpaquePointer) throws {
        self.key = key
        var coordinates = [UInt8](repeating: 0, count: 64)
        guard latchkey_p256_public(key, &coordinates) == 1 else {
            EVP_PKEY_free(key)
            throw DeviceKeyError.cryptoFailure("public key")
        }
        self.publicKeyCoordinates = Data(coordinates)
    }

    deinit {
        EVP_PKEY_free(self.key)
    }

    /// A new key.
    convenience init() throws {
        guard let key = latchkey_p256_generate() else { throw DeviceKeyError.cryptoFailure("key generation") }
        try self.init(key: key)
    }

    /// The key of PKCS#8 DER.
    convenience init(pkcs8 der: Data) throws {
        let bytes = Array(der)
        guard let key = latchkey_p256_import(bytes, bytes.count) else { throw DeviceKeyError.cryptoFailure("not a P-256 PKCS#8 key") }
        try self.init(key: key)
    }

    /// The key as PKCS#8 DER.
    func pkcs8() throws -> Data {
        var der = [UInt8](repeating: 0, count: 512)
        var length: Int32 = 0
        guard latchkey_p256_export(self.key, &der, Int32(der.count), &length) == 1 else { throw DeviceKeyError.cryptoFailure("export") }
        return Data(der[0..<Int(length)])
    }

    func signature(for data: Data) throws -> Data {
        var signature = [UInt8](repeating: 0, count: 64)
        let bytes = Array(data)
        guard latchkey_p256_sign(self.key, bytes, bytes.count, &signature) == 1 else { throw DeviceKeyError.cryptoFailure("signing") }
        return Data(signature)
    }

    /// The key in `file`, made and written there (0600) first when there is none (by one
    /// process only, when several make it at once).
    static func stored(in file: URL) throws -> SoftwareDeviceKey {
        if let der = try PrivateFile.read(file) { return try SoftwareDeviceKey(pkcs8: der) }
        let key = try SoftwareDeviceKey()
        if try PrivateFile.create(try key.pkcs8(), at: file) { return key }
        return try SoftwareDeviceKey(pkcs8: try PrivateFile.read(file) ?? key.pkcs8())
    }
}
#endif
