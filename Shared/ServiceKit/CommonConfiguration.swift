import FoundationEssentials
import Logging
import ServiceProtocol

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
    /// The named callers of this service's RPC and the methods each may call, read from the
    /// file `RPC_CALLERS` names (DESIGN.md §9.5); nil: `SERVICE_TOKEN` admits every caller to
    /// every method.
    public var rpcCallers: RPCCallers?
    /// Mutual TLS of the internal RPC, this service's server and its clients alike
    /// (`RPC_TLS_CERT_FILE`, `RPC_TLS_KEY_FILE`, `RPC_TLS_CA_FILE`: all three or none).
    public var rpcTLS: RPCTLS?

    /// `localhost`, `::1` or an address in 127.0.0.0/8.
    static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" || host == "::1" || host == "[::1]" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    /// The token used in development when `SERVICE_TOKEN` is unset; refused in production,
    /// and only on loopback.
    public static let developmentServiceToken = "development-service-token"

    public init(_ env: EnvironmentReader, defaultRPCPort: Int, defaultOpsPort: Int) throws {
        // Production unless development is asked for: a binary started by hand with nothing set
        // must not run with the public development token on every interface.
        self.environment = try env.choice("ENVIRONMENT", default: .production)
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
        if self.serviceToken == Self.developmentServiceToken {
            // The fixed token is public: anyone who reached the port could call `tokens.issue`.
            let host = env.string("RPC_HOST", default: "127.0.0.1")
            guard Self.isLoopback(host) else {
                throw ConfigurationError.insecure(
                    "RPC_HOST", "must be a loopback address while SERVICE_TOKEN is the fixed development token; set SERVICE_TOKEN")
            }
            self.rpcHost = host
        } else {
            self.rpcHost = env.string("RPC_HOST", default: "0.0.0.0")
        }
        self.rpcPort = try env.port("RPC_PORT", default: defaultRPCPort)
        self.opsPort = try env.port("OPS_PORT", default: defaultOpsPort)
        self.rpcHelloTimeout = try env.seconds("RPC_HELLO_TIMEOUT", default: 5, range: 1...300)
        self.rpcMaxConnections = try env.int("RPC_MAX_CONNECTIONS", default: 1024, range: 1...1_000_000)
        self.rpcCallers = try Self.callers(env)
        self.rpcTLS = try Self.tls(env)
    }

    /// The RPC's TLS when its three files are named; a missing or unusable one is named. The
    /// services read it through `init`, the operator CLI directly.
    public static func tls(_ env: EnvironmentReader) throws -> RPCTLS? {
        let names = ["RPC_TLS_CERT_FILE", "RPC_TLS_KEY_FILE", "RPC_TLS_CA_FILE"]
        let files = names.map { env.optional($0) }
        guard files.contains(where: { $0 != nil }) else { return nil }
        for (name, file) in zip(names, files) where file == nil {
            throw ConfigurationError.missing(name)
        }
        do {
            return try RPCTLS(certificateFile: files[0]!, keyFile: files[1]!, caFile: files[2]!)
        } catch {
            let name = zip(names, files).first { $0.1 == error.file }?.0 ?? "RPC_TLS_CERT_FILE"
            throw ConfigurationError.invalid(name, "a readable PEM file (\(error))")
        }
    }

    /// The caller list in the file `RPC_CALLERS` names, when it names one.
    static func callers(_ env: EnvironmentReader) throws -> RPCCallers? {
        guard let path = env.optional("RPC_CALLERS") else { return nil }
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw ConfigurationError.invalid("RPC_CALLERS", "a readable file of name:token-hash:methods lines (\(path) cannot be read)")
        }
        do {
            return try RPCCallers(parsing: text)
        } catch {
            throw ConfigurationError.invalid("RPC_CALLERS", "name:token-hash:methods lines; \(path) \(error)")
        }
    }
}

