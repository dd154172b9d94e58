import Foundation
import Logging
import MockIdentityProvider
import ServiceKit

// The mock Apple / Google identity provider for the local stack, demos and benchmarks.
// MOCK_IDP_HOST (127.0.0.1), MOCK_IDP_PORT (9400), MOCK_IDP_JWKS_MAX_AGE (3600 s).
let env = EnvironmentReader()
let host: String
let port: Int
var configuration = MockIdentityProvider.Configuration()
do {
    host = env.string("MOCK_IDP_HOST", default: "127.0.0.1")
    port = try env.port("MOCK_IDP_PORT", default: 9400)
    configuration.jwksMaxAge = try env.int("MOCK_IDP_JWKS_MAX_AGE", default: 3600)
} catch {
    FileHandle.standardError.write(Data("mock-idp: configuration error: \(error)\n".utf8))
    exit(2)
}
LoggingSetup.bootstrap(level: .info, format: .text)
let logger = Logger(label: "mock-idp")
let provider = try MockIdentityProvider(configuration: configuration)
let app = MockIdentityProviderServer.application(provider: provider, host: host, port: port, logger: logger) { bound in
    let endpoints = MockEndpoints(baseURL: "http://\(host):\(bound)")
    logger.info("mock identity provider listening", metadata: ["url": "\(endpoints.baseURL)"])
    for (name, value) in endpoints.environment.sorted(by: { $0.key < $1.key }) {
        FileHandle.standardOutput.write(Data("\(name)=\(value)\n".utf8))  // unbuffered: reaches a pipe at once
    }
}
try await app.runService()
