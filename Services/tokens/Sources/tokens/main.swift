import Foundation
import ServiceKit
import TokenService

// `tokens keygen` writes a new signing key (of SIGNING_ALG, or the algorithm given) into
// SIGNING_KEYS_DIR for rotation; with no arguments the service runs.
let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "keygen" {
    exit(KeygenCommand.run(arguments: Array(arguments.dropFirst()), env: EnvironmentReader()))
}
// A loop per CPU: signing is most of its work (EventLoops.Share.all).
await ServiceMain.run(
    name: TokensApp.name, eventLoops: .all, commonConfiguration: TokensApp.commonConfiguration, start: TokensApp.start)
