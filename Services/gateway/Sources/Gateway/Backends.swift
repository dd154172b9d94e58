import AccountAdministration
import Logging
import ServiceLifecycle
import ServiceProtocol

/// The pooled RPC clients of the three backends. Every call carries the request id; reads and
/// calls the backends document as idempotent are marked so, so the client may retry them on
/// another replica.
struct Backends: Sendable {
    let identity: RPCClient
    let tokens: RPCClient
    let contentState: RPCClient

    init(configuration: GatewayConfiguration, logger: Logger) {
        func client(_ service: String, _ endpoints: [RPCEndpoint]) -> RPCClient {
            var clientConfiguration = RPCClient.Configuration(
                endpoints: endpoints, serviceName: service, callerName: GatewayApp.name, serviceToken: configuration.common.serviceToken)
            // The backends' mutual TLS, with the gateway's own certificate (`RPC_TLS_*`).
            clientConfiguration.tls = configuration.common.rpcTLS
            return RPCClient(configuration: clientConfiguration, logger: logger)
        }
        self.identity = client("identity", configuration.identityEndpoints)
        self.tokens = client("tokens", configuration.tokensEndpoints)
        self.contentState = client("content-state", configuration.contentStateEndpoints)
    }

    var all: [any Service] { [self.identity, self.tokens, self.contentState] }

    /// What an operator does to an account, across the three (shared with the `latchkey` CLI).
    var administration: AccountAdministration {
        AccountAdministration(identity: self.identity, tokens: self.tokens, contentState: self.contentState)
    }

    /// `audited`: the call records an audit event, so it carries the end user's address and
    /// user agent (other calls stay without them).
    static func options(_ context: GatewayRequestContext, idempotent: Bool, audited: Bool = false) -> RPCClient.CallOptions {
        RPCClient.CallOptions(idempotent: idempotent, requestID: context.requestID, origin: audited ? context.origin : nil)
    }
}
