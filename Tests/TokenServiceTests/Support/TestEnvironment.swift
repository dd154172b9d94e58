import Foundation
import TestSupport
import TokenService

/// A fresh, empty folder for signing keys.
func temporaryKeysFolder() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-tokens-test-keys-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// A fresh folder holding one RS256 signing key, the same key in every folder of the test
/// run: generating a 2048-bit key costs hundreds of milliseconds (seconds in a debug build on
/// a busy machine), and most tests need a key, not a new one. Tests about generating keys use
/// `temporaryKeysFolder()`.
func seededKeysFolder() throws -> URL {
    let url = try temporaryKeysFolder()
    let source = try SeedKey.shared.file()
    try FileManager.default.copyItem(at: source, to: url.appendingPathComponent(source.lastPathComponent))
    return url
}

/// The one key `seededKeysFolder` copies, generated on first use.
private final class SeedKey: @unchecked Sendable {
    static let shared = SeedKey()
    private let lock = NSLock()
    private var generated: URL?

    func file() throws -> URL {
        self.lock.lock()
        defer { self.lock.unlock() }
        if let generated { return generated }
        let folder = try temporaryKeysFolder()
        // Dated an hour back, so a key a test generates later is always the newer one, even
        // within the same second (keys of one second are ordered by name, which is random).
        let key = try SigningKeyFolder(url: folder).generate(.rs256, now: Date().addingTimeInterval(-3600))
        let file = folder.appendingPathComponent(key.fileName)
        self.generated = file
        return file
    }
}

/// The environment an in-process `tokens` instance starts from.
func tokensEnvironment(keys: URL, _ extra: [String: String] = [:]) throws -> [String: String] {
    [
        "ENVIRONMENT": "development",
        "DATABASE_URL": try requiredEnvironment("DATABASE_URL"),
        "REDIS_URL": try requiredEnvironment("REDIS_URL"),
        "RPC_HOST": "127.0.0.1",
        "RPC_PORT": "0",
        "OPS_PORT": "0",
        "SERVICE_TOKEN": TokensHarness.serviceToken,
        "SIGNING_KEYS_DIR": keys.path,
        "DATABASE_POOL_SIZE": "8",
    ].merging(extra) { _, new in new }
}
