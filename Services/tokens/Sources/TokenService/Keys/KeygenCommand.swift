import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import ServiceKit

/// `tokens keygen [RS256|ES256|EdDSA]`: writes a new key into `SIGNING_KEYS_DIR` (mode 0600).
/// Replicas publish it within their key reload interval and sign with it once it is older than
/// `SIGNING_KEY_ACTIVATION_DELAY`; old keys stay published, so tokens they signed keep verifying
/// until they are removed.
public enum KeygenCommand {
    public static func run(arguments: [String], env: EnvironmentReader) -> Int32 {
        do {
            // Only what a key needs: an operator or an init container runs this without the
            // service's other settings (issuer, audience, databases).
            let environment = try env.choice("ENVIRONMENT", default: DeploymentEnvironment.production)
            var algorithm = try env.choice("SIGNING_ALG", default: SigningAlgorithm.rs256)
            if let name = arguments.first {
                guard let chosen = SigningAlgorithm(rawValue: name.lowercased()) else {
                    StandardError.write("usage: tokens keygen [RS256|ES256|EdDSA]\n")
                    return 2
                }
                algorithm = chosen
            }
            let folder: URL
            if let directory = env.optional("SIGNING_KEYS_DIR") {
                folder = URL(fileURLWithPath: directory, isDirectory: true)
            } else if environment == .development {
                folder = TokensConfiguration.developmentKeysDirectory
            } else {
                throw ConfigurationError.missing("SIGNING_KEYS_DIR")
            }
            // No folder lock: that is for replicas making the development key, and would leave
            // a `.lock` file in an operator's key folder (and in the Secret made from it).
            let key = try SigningKeyFolder(url: folder).generate(algorithm)
            print("wrote \(folder.appendingPathComponent(key.fileName).path) kid=\(key.kid) alg=\(key.algorithm.jwsName)")
            return 0
        } catch {
            StandardError.write("tokens keygen: \(error)\n")
            return 1
        }
    }
}
