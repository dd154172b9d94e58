import AccountAdministration
import ArgumentParser
import Foundation
import Logging
import ServiceKit
import ServiceProtocol

/// Where the backends are and how to reach them, from the environment as the services read it.
struct OperatorConnection: ParsableArguments {
    @Option(help: "identity's RPC endpoints, host:port[,...] (default: IDENTITY_ENDPOINTS, else 127.0.0.1:7001).")
    var identity: String?

    @Option(help: "tokens' RPC endpoints (default: TOKENS_ENDPOINTS, else 127.0.0.1:7002).")
    var tokens: String?

    @Option(help: "content-state's RPC endpoints (default: CONTENT_STATE_ENDPOINTS, else 127.0.0.1:7003).")
    var contentState: String?

    @Option(help: "Seconds to wait for each call.")
    var timeout: Int = 30

    /// Runs `body` with clients of the three backends; `SERVICE_TOKEN` authenticates them, as the
    /// caller `RPC_CALLER_NAME` (`latchkey-cli` unless set: the name of its line in the backends'
    /// `RPC_CALLERS`; `gateway` with the gateway's token), over mutual TLS when `RPC_TLS_CERT_FILE`,
    /// `RPC_TLS_KEY_FILE` and `RPC_TLS_CA_FILE` are set (as in a gateway's container).
    func withAdministration<T: Sendable>(_ body: (AccountAdministration) async throws -> T) async throws -> T {
        let environment = ProcessInfo.processInfo.environment
        guard let token = environment["SERVICE_TOKEN"], !token.isEmpty else {
            throw OperatorSettingError(message: "SERVICE_TOKEN is not set: the backends accept only callers that know it")
        }
        let callerName = environment["RPC_CALLER_NAME"].flatMap { $0.isEmpty ? nil : $0 } ?? "latchkey-cli"
        // The services' own reading of RPC_TLS_*: all three files or none, each one usable.
        let tls: RPCTLS?
        do {
            tls = try CommonConfiguration.tls(EnvironmentReader(environment))
        } catch let error as ConfigurationError {
            throw OperatorSettingError(message: error.description)
        }
        func configuration(_ service: String, _ option: String?, _ variable: String, _ fallback: String) throws -> RPCClient.Configuration {
            let text = option ?? environment[variable] ?? fallback
            let endpoints: [RPCEndpoint]
            do {
                endpoints = try RPCEndpoint.parseList(text)
            } catch {
                throw OperatorSettingError(message: "\(variable) must be a comma list of host:port, not \(text)")
            }
            var configuration = RPCClient.Configuration(
                endpoints: endpoints, serviceName: service, callerName: callerName, serviceToken: token)
            configuration.callTimeout = .seconds(self.timeout)
            configuration.tls = tls
            return configuration
        }
        let identity = try configuration("identity", self.identity, "IDENTITY_ENDPOINTS", "127.0.0.1:7001")
        let tokens = try configuration("tokens", self.tokens, "TOKENS_ENDPOINTS", "127.0.0.1:7002")
        let contentState = try configuration("content-state", self.contentState, "CONTENT_STATE_ENDPOINTS", "127.0.0.1:7003")
        // Reconnection warnings would bury the one line a failure prints; errors (a refused
        // SERVICE_TOKEN) still show.
        var logger = Logger(label: "latchkey")
        logger.logLevel = .error
        return try await RPCClient.withClient(configuration: identity, logger: logger) { identity in
            try await RPCClient.withClient(configuration: tokens, logger: logger) { tokens in
                try await RPCClient.withClient(configuration: contentState, logger: logger) { contentState in
                    try await body(AccountAdministration(identity: identity, tokens: tokens, contentState: contentState))
                }
            }
        }
    }
}
