#if canImport(Security)
import Foundation
import Security

/// The stored form of a device key (``CryptoKitDeviceKey/stored``) in a Keychain item beside a
/// ``KeychainTokenStore``'s: the same service and access group, its account plus `.dpop-key`,
/// readable after the first unlock and never migrated to another device.
struct KeychainDeviceKeyItem: Sendable {
    let service: String
    let account: String
    let accessGroup: String?

    init(beside store: KeychainTokenStore) {
        self.service = store.service
        self.account = store.account + ".dpop-key"
        self.accessGroup = store.accessGroup
    }

    private var query: [String: Any] {
        KeychainTokenStore.itemQuery(service: self.service, account: self.account, accessGroup: self.accessGroup)
    }

    /// The key in the item, made and stored there first when there is none (of two clients
    /// making it at once, the second reads the first's).
    func key() throws -> CryptoKitDeviceKey {
        if let stored = try self.read() { return try CryptoKitDeviceKey(stored: stored) }
        let key = try CryptoKitDeviceKey.make()
        var item = self.query
        item[kSecValueData as String] = key.stored
        item[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
        let added = SecItemAdd(item as CFDictionary, nil)
        if added == errSecDuplicateItem, let stored = try self.read() { return try CryptoKitDeviceKey(stored: stored) }
        guard added == errSecSuccess else { throw KeychainTokenStore.KeychainError(status: added) }
        return key
    }

    private func read() throws -> Data? {
        try KeychainTokenStore.itemData(self.query)
    }
}
#endif
