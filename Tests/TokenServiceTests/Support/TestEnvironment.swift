import Foundation
import TestSupport

/// A fresh, empty folder for signing keys.
func temporaryKeysFolder() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-tokens-test-keys-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// The environment an in-process `tokens` instance starts from.
func tokensEnvironment(keys: URL, _ extra: [String: String] = [:]) throws -> [String: String] {
    [
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
