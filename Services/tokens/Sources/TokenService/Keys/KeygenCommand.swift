import Foundation
import ServiceKit

/// `tokens keygen [RS256|ES256|EdDSA]`: writes a new key into `SIGNING_KEYS_DIR` (mode 0600).
/// Replicas publish it within their key reload interval and sign with it from then on; old
/// keys stay published, so tokens they signed keep verifying until they are removed.
public enum KeygenCommand {
    public static func run(arguments: [String], env: EnvironmentReader) -> Int32 {
        do {
            var configuration = try TokensConfiguration(env)
            if let name = arguments.first {
                guard let algorithm = SigningAlgorithm(rawValue: name.lowercased()) else {
                    FileHandle.standardError.write(Data("usage: tokens keygen [RS256|ES256|EdDSA]\n".utf8))
                    return 2
                }
                configuration.signingAlgorithm = algorithm
            }
            let key = try SigningKeyFolder(url: configuration.signingKeysDirectory).generate(configuration.signingAlgorithm)
            print("wrote \(configuration.signingKeysDirectory.appendingPathComponent(key.fileName).path) kid=\(key.kid) alg=\(key.algorithm.jwsName)")
            return 0
        } catch {
            FileHandle.standardError.write(Data("tokens keygen: \(error)\n".utf8))
            return 1
        }
    }
}
