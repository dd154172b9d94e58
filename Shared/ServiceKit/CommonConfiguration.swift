import Logging

/// Where a service runs: production refuses insecure defaults.
public enum DeploymentEnvironment: String, Sendable, CaseIterable {
    case development
    case production
}

/// Log line format.
public enum LogFormat: String, Sendable, CaseIterable {
    case text
    case json
}

/// The settings every service reads (DESIGN.md section 3).
public struct CommonConfiguration: Sendable {
    public var environment: DeploymentEnvironment
    public var logLevel: Logger.Level
    public var logFormat: LogFormat
    /// The shared secret every RPC caller presents.
    public var serviceToken: String
    public var rpcHost: String
    public var rpcPort: Int
    public var opsPort: Int
    /// A connection without a good `hello` by then is closed (`RPC_HELLO_TIMEOUT`, 5 s).
    public var rpcHelloTimeout: Duration
    /// Open RPC connections at most (`RPC_MAX_CONNECTIONS`, 1024).
    public var rpcMaxConnections: Int

    /// The token used in development when `SERVICE_TOKEN` is unset; refused in production.
    public static let developmentServiceToken = "development-service-token"

    public init(_ env: EnvironmentReader, defaultRPCPort: Int, defaultOpsPort: Int) throws {
        self.environment = try env.choice("ENVIRONMENT", default: .development)
        self.logLevel = try env.choice("LOG_LEVEL", default: .info)
        self.logFormat = try env.choice("LOG_FORMAT", default: self.environment == .production ? .json : .text)
        if let token = env.optional("SERVICE_TOKEN") {
            guard self.environment == .development || token.utf8.count >= 16 else {
                throw ConfigurationError.insecure("SERVICE_TOKEN", "must be at least 16 characters in production")
            }
            self.serviceToken = token
        } else if self.environment == .development {
            self.serviceToken = Self.developmentServiceToken
        } else {
            throw ConfigurationError.missing("SERVICE_TOKEN")
        }
        self.rpcHost = env.string("RPC_HOST", default: "0.0.0.0")
        self.rpcPort = try env.port("RPC_PORT", default: defaultRPCPort)
        self.opsPort = try env.port("OPS_PORT", default: defaultOpsPort)
        self.rpcHelloTimeout = try env.seconds("RPC_HELLO_TIMEOUT", default: 5, range: 1...300)
        self.rpcMaxConnections = try env.int("RPC_MAX_CONNECTIONS", default: 1024, range: 1...1_000_000)
    }
}

