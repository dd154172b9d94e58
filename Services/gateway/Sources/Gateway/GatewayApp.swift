import Hummingbird
import Logging
import Redis
import ServiceKit
import ServiceLifecycle
import ServiceProtocol

/// The gateway: the public HTTP API in front of identity, tokens and content-state.
/// `start` returns its long-lived services, HTTP server last so it drains first.
public enum GatewayApp {
    public static let name = "gateway"

    public static func commonConfiguration(_ env: EnvironmentReader) throws -> CommonConfiguration {
        try GatewayConfiguration(env).common
    }

    public static func start(_ env: EnvironmentReader, logger: Logger) async throws -> [any Service] {
        let configuration = try GatewayConfiguration(env)
        let redis = try await BackendBootstrap.redis(env, logger: logger)
        let backends = Backends(configuration: configuration, logger: logger)
        let router = Router()
        router.add(middleware: RequestIDMiddleware())
        router.add(middleware: ErrorMiddleware())
        router.add(middleware: BodyLimitMiddleware(maxBodyBytes: configuration.maxBodyBytes))
        router.get("/healthz") { _, _ in
            HealthResponse(status: "ok")
        }
        let app = Application(
            router: router,
            configuration: .init(address: .hostname(configuration.httpHost, port: configuration.httpPort), serverName: name),
            logger: logger)
        return [ShutdownAction { await redis.shutdown() }] + backends.all + [app]
    }
}

/// The body of `/healthz`.
struct HealthResponse: ResponseEncodable {
    var status: String
}

/// The pooled RPC clients of the three backends.
struct Backends: Sendable {
    let identity: RPCClient
    let tokens: RPCClient
    let contentState: RPCClient

    init(configuration: GatewayConfiguration, logger: Logger) {
        func client(_ service: String, _ endpoints: [RPCEndpoint]) -> RPCClient {
            RPCClient(
                configuration: .init(
                    endpoints: endpoints, serviceName: service, callerName: GatewayApp.name,
                    serviceToken: configuration.common.serviceToken),
                logger: logger)
        }
        self.identity = client("identity", configuration.identityEndpoints)
        self.tokens = client("tokens", configuration.tokensEndpoints)
        self.contentState = client("content-state", configuration.contentStateEndpoints)
    }

    var all: [any Service] { [self.identity, self.tokens, self.contentState] }
}
