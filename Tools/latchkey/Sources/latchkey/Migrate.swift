import ArgumentParser
import ContentStateService
import Foundation
import IdentityService
import Logging
import Postgres
import ServiceKit
import TokenService

/// `latchkey migrate`: every service's migrations, then exit; for an init container or an
/// upgrade before the new services start (each also migrates its own schema at start).
struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Apply the migrations of identity, tokens and content-state to DATABASE_URL, then exit.",
        discussion: "Safe to run while services run or start: each schema is migrated under a Postgres advisory lock.")

    func run() async throws {
        var logger = Logger(label: "latchkey.migrate")
        logger.logLevel = .warning
        let env = EnvironmentReader()
        let schemas: [(String, [Migration])] = [
            (IdentityApp.schema, IdentityApp.migrations), (TokensApp.schema, TokensApp.migrations),
            (ContentStateApp.schema, ContentStateApp.migrations),
        ]
        for (schema, migrations) in schemas {
            do {
                let client = try await BackendBootstrap.postgres(env, schema: schema, migrations: migrations, logger: logger)
                await client.shutdown()
            } catch let error as ConfigurationError {
                FileHandle.standardError.write(Data("latchkey: \(error)\n".utf8))
                throw ExitCode(OperatorExit.configuration)
            } catch {
                FileHandle.standardError.write(Data("latchkey: migrating schema \(schema) failed: \(error)\n".utf8))
                throw ExitCode(OperatorExit.unavailable)
            }
            print("schema \(schema): up to date (\(migrations.count) migrations)")
        }
    }
}
