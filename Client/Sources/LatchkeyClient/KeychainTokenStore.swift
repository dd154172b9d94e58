#if canImport(Security)
import Foundation
import Security

/// A ``TokenStore`` in the Keychain: one generic-password item holding the tokens as JSON,
/// readable after the device's first unlock and never migrated to another device.
///
/// An app and its extensions sharing the item through an access group should also share a
/// ``lockFile`` in their app group container: the clients then take turns to refresh, and never
/// both rotate the same refresh token.
public actor KeychainTokenStore: TokenStore {
    /// The item's `kSecAttrService`; the app's bundle id plus a suffix is a good choice.
    public nonisolated let service: String
    /// The item's `kSecAttrAccount`.
    public nonisolated let account: String
    /// A Keychain access group shared with the app's extensions, or nil for the app's own.
    public nonisolated let accessGroup: String?
    /// A file the processes sharing the item lock while one refreshes (in the app group's
    /// container), or nil when one process uses it.
    public let lockFile: URL?
    private let lock = AsyncLock()

    /// The store of one Keychain item, named by `service` and `account`.
    public init(service: String, account: String = "latchkey.tokens", accessGroup: String? = nil, lockFile: URL? = nil) {
        self.service = service
        self.account = account
        self.accessGroup = accessGroup
        self.lockFile = lockFile
    }

    /// Runs `body` while no other client of the item runs its own: in this process in turn, and
    /// across processes through ``lockFile`` when there is one.
    public nonisolated func withExclusiveAccess<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        let lockFile = self.lockFile
        return try await self.lock.withLock {
            guard let lockFile else { return try await body() }
            try PrivateFile.createFolder(of: lockFile)
            return try await FileLock.withLock(lockFile, body)
        }
    }

    /// A Keychain call's failure, with its `OSStatus`.
    public struct KeychainError: Error, Hashable, Sendable {
        public var status: OSStatus
    }

    private var query: [String: Any] {
        Self.itemQuery(service: self.service, account: self.account, accessGroup: self.accessGroup)
    }

    /// The query of one generic-password item (the tokens', or the device key's beside them).
    static func itemQuery(service: String, account: String, accessGroup: String?) -> [String: Any] {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: account,
        ]
        if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
        return query
    }

    public func load() throws -> StoredTokens? {
        guard let data = try Self.itemData(self.query) else { return nil }
        return try JSONDecoder().decode(StoredTokens.self, from: data)
    }

    /// The data of the item `query` names (`itemQuery`), or nil when there is none.
    static func itemData(_ query: [String: Any]) throws -> Data? {
        var query = query
        query[kSecReturnData as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        if status == errSecItemNotFound { return nil }
        guard status == errSecSuccess, let data = result as? Data else { throw KeychainError(status: status) }
        return data
    }

    public func save(_ tokens: StoredTokens) throws {
        let data = try JSONEncoder().encode(tokens)
        let attributes: [String: Any] = [
            kSecValueData as String: data,
            kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
        ]
        let status = SecItemUpdate(self.query as CFDictionary, attributes as CFDictionary)
        if status == errSecItemNotFound {
            let added = SecItemAdd(self.query.merging(attributes) { _, new in new } as CFDictionary, nil)
            guard added == errSecSuccess else { throw KeychainError(status: added) }
        } else if status != errSecSuccess {
            throw KeychainError(status: status)
        }
    }

    public func clear() throws {
        let status = SecItemDelete(self.query as CFDictionary)
        guard status == errSecSuccess || status == errSecItemNotFound else { throw KeychainError(status: status) }
    }
}
#endif
