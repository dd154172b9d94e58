import ServiceKit
import ServiceProtocol

/// The gateway's settings (DESIGN.md section 3).
public struct GatewayConfiguration: Sendable {
    public var common: CommonConfiguration
    public var httpHost: String
    public var httpPort: Int
    public var identityEndpoints: [RPCEndpoint]
    public var tokensEndpoints: [RPCEndpoint]
    public var contentStateEndpoints: [RPCEndpoint]
    public var maxBodyBytes: Int

    public init(_ env: EnvironmentReader) throws {
        self.common = try CommonConfiguration(env, defaultRPCPort: 0, defaultOpsPort: 0)
        self.httpHost = env.string("HTTP_HOST", default: "0.0.0.0")
        self.httpPort = try env.port("HTTP_PORT", default: 8080)
        self.identityEndpoints = try Self.endpoints(env, "IDENTITY_ENDPOINTS", default: "127.0.0.1:7001")
        self.tokensEndpoints = try Self.endpoints(env, "TOKENS_ENDPOINTS", default: "127.0.0.1:7002")
        self.contentStateEndpoints = try Self.endpoints(env, "CONTENT_STATE_ENDPOINTS", default: "127.0.0.1:7003")
        self.maxBodyBytes = try env.int("MAX_BODY_BYTES", default: 65536, range: 1024...(16 << 20))
    }

    private static func endpoints(_ env: EnvironmentReader, _ name: String, default defaultValue: String) throws -> [RPCEndpoint] {
        do {
            return try RPCEndpoint.parseList(env.string(name, default: defaultValue))
        } catch {
            throw ConfigurationError.invalid(name, "a comma list of host:port")
        }
    }
}
