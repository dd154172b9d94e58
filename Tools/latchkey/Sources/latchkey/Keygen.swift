import ArgumentParser
import Foundation
import ServiceKit
import TokenService

/// `latchkey keygen`: a new signing key in the key folder, as `tokens keygen` writes it.
struct Keygen: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a new signing key into the signing key folder (mode 0600).",
        discussion: """
            Every tokens replica publishes the key at its next reload and signs with it once \
            it is older than SIGNING_KEY_ACTIVATION_DELAY; older keys stay published until you \
            delete them (after the new key signs, plus ACCESS_TOKEN_TTL).
            """)

    @Option(help: "The key folder (default: SIGNING_KEYS_DIR).")
    var keysDir: String?

    @Option(help: "RS256, ES256 or EdDSA (default: SIGNING_ALG, else RS256).")
    var algorithm: String?

    func run() throws {
        var values = ProcessInfo.processInfo.environment
        if let keysDir { values["SIGNING_KEYS_DIR"] = keysDir }
        guard values["SIGNING_KEYS_DIR"] != nil else {
            FileHandle.standardError.write(Data("latchkey: give --keys-dir or set SIGNING_KEYS_DIR\n".utf8))
            throw ExitCode(OperatorExit.configuration)
        }
        let status = KeygenCommand.run(arguments: self.algorithm.map { [$0] } ?? [], env: EnvironmentReader(values))
        if status != 0 { throw ExitCode(status) }
    }
}
