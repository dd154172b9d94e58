import Foundation
import Logging
import Postgres
import TestSupport

/// The shared test server named by `DATABASE_URL`. Tests fail, never skip, without it.
enum TestDatabase {
    /// Thrown when the environment does not name a test server.
    struct MissingEnvironment: Error, CustomStringConvertible {
        let name: String
        var description: String { "\(name) is not set: start Postgres (see scripts/test) and export \(name)" }
    }

    static func url() throws -> String {
        guard let url = ProcessInfo.processInfo.environment["DATABASE_URL"], !url.isEmpty else {
            throw MissingEnvironment(name: "DATABASE_URL")
        }
        return url
    }

    static let logger: Logger = {
        var logger = Logger(label: "postgres-tests")
        logger.logLevel = .warning
        return logger
    }()

    /// Runs `body` with a fresh client of the shared server and shuts it down afterwards.
    @discardableResult
    static func withClient<T: Sendable>(
        poolSize: Int = 4,
        acquireTimeout: Duration = .seconds(60),
        url: String? = nil,
        _ body: (PostgresClient) async throws -> T
    ) async throws -> T {
        try await withTestDatabase(poolSize: poolSize, acquireTimeout: acquireTimeout, url: try url ?? Self.url(), body)
    }

    /// A table or schema name no parallel test uses.
    static func uniqueName(_ prefix: String) -> String {
        "\(prefix)_\(UUID().uuidString.prefix(8).lowercased())"
    }

    /// `url` with one more query parameter.
    static func url(_ url: String, adding parameter: String) -> String {
        url + (url.contains("?") ? "&" : "?") + parameter
    }
}
