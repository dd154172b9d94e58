import ContentStateService
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Gateway
import IdentityService
import ServiceKit
import ServiceLaunch
import TokenService

// The four services in one executable (`LatchkeyService`): the service is the first argument,
// or the name this was started under (a launcher or a link named `gateway`, `tokens`, ...).
guard let request = LatchkeyService.requested(by: CommandLine.arguments) else {
    StandardError.write(LatchkeyService.usage)
    exit(64)
}
request.service.nameProcess()
switch request.service {
case .gateway:
    await ServiceMain.run(
        name: GatewayApp.name, eventLoops: .all, commonConfiguration: GatewayApp.commonConfiguration, start: GatewayApp.start)
case .identity:
    await ServiceMain.run(name: IdentityApp.name, commonConfiguration: IdentityApp.commonConfiguration, start: IdentityApp.start)
case .tokens:
    // `tokens keygen` writes a new signing key (of SIGNING_ALG, or the algorithm given) into
    // SIGNING_KEYS_DIR for rotation; with no arguments the service runs.
    if request.arguments.first == "keygen" {
        exit(KeygenCommand.run(arguments: Array(request.arguments.dropFirst()), env: EnvironmentReader()))
    }
    // A loop per CPU: signing is most of its work (EventLoops.Share.all).
    await ServiceMain.run(
        name: TokensApp.name, eventLoops: .all, commonConfiguration: TokensApp.commonConfiguration, start: TokensApp.start)
case .contentState:
    await ServiceMain.run(
        name: ContentStateApp.name, commonConfiguration: ContentStateApp.commonConfiguration, start: ContentStateApp.start)
}
