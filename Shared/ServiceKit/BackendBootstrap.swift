import FoundationEssentials
import Logging
import NIOCore
import Redis
import ServiceLifecycle
import ServiceProtocol

/// The pieces every backend service starts the same way: its Redis client, its RPC server and
/// its operations server (a backend on Postgres adds its pool: module PostgresService).
public enum BackendBootstrap {
    /// The Redis client from `REDIS_URL` (`REDIS_POOL_SIZE`, default 4), once it answers PING.
    /// A `rediss://` URL speaks TLS, trusting `REDIS_TLS_CA_FILE` (else the system's authorities)
    /// and presenting `REDIS_TLS_CERT_FILE`/`REDIS_TLS_KEY_FILE` when the server asks for a client
    /// certificate.
    public static func redis(_ env: EnvironmentReader, logger: Logger, startupTimeout: Duration = .seconds(30)) async throws -> RedisClient {
        let text = try env.required("REDIS_URL")
        let url: RedisURL
        do {
            url = try RedisURL(parsing: text)
        } catch {
            throw ConfigurationError.invalid("REDIS_URL", "redis[s]://[[user]:password@]host:port[/db]")
        }
        let poolSize = try env.int("REDIS_POOL_SIZE", default: 4, range: 1...200)
        let client = RedisClient(
            configuration: RedisConfiguration(url: url, poolSize: poolSize, tls: try redisTLS(env, url: url)), logger: logger)
        try await retryingAtStart("Redis", timeout: startupTimeout, logger: logger) {
            try await client.ping()
        }
        return client
    }

    /// The TLS settings of a `rediss://` URL; TLS files beside a `redis://` URL are a mistake
    /// (the operator meant TLS), refused rather than ignored.
    private static func redisTLS(_ env: EnvironmentReader, url: RedisURL) throws -> RedisTLSContext? {
        let caFile = env.optional("REDIS_TLS_CA_FILE")
        let certificateFile = env.optional("REDIS_TLS_CERT_FILE")
        let keyFile = env.optional("REDIS_TLS_KEY_FILE")
        guard url.tls else {
            if let name = [("REDIS_TLS_CA_FILE", caFile), ("REDIS_TLS_CERT_FILE", certificateFile), ("REDIS_TLS_KEY_FILE", keyFile)]
                .first(where: { $0.1 != nil })?.0
            {
                throw ConfigurationError.invalid(name, "a file used with a rediss:// REDIS_URL (REDIS_URL is redis://)")
            }
            return nil
        }
        guard (certificateFile == nil) == (keyFile == nil) else {
            throw ConfigurationError.invalid(
                certificateFile == nil ? "REDIS_TLS_CERT_FILE" : "REDIS_TLS_KEY_FILE",
                "set with REDIS_TLS_\(certificateFile == nil ? "KEY" : "CERT")_FILE (a client certificate needs both)")
        }
        for (name, path) in [("REDIS_TLS_CA_FILE", caFile), ("REDIS_TLS_CERT_FILE", certificateFile), ("REDIS_TLS_KEY_FILE", keyFile)] {
            if let path, !FileManager.default.isReadableFile(atPath: path) {
                throw ConfigurationError.invalid(name, "a readable PEM file (\(path) cannot be read)")
            }
        }
        do {
            return try RedisTLSContext(caFile: caFile, certificateFile: certificateFile, keyFile: keyFile)
        } catch {
            // The files are readable, so their contents are wrong; the message names the file.
            let variable = "\(error)".contains("client") ? "REDIS_TLS_CERT_FILE" : "REDIS_TLS_CA_FILE"
            throw ConfigurationError.invalid(variable, "PEM that OpenSSL accepts (\(error))")
        }
    }

    /// Binds the RPC server on `RPC_HOST:RPC_PORT` with the shared token, or the named callers
    /// of `RPC_CALLERS`.
    public static func rpcServer(
        name: String, common: CommonConfiguration, router: RPCRouter, logger: Logger
    ) async throws -> RPCServer {
        var configuration = RPCServer.Configuration(
            serviceName: name, serviceToken: common.serviceToken, host: common.rpcHost, port: common.rpcPort)
        configuration.serviceVersion = latchkeyVersion
        configuration.helloTimeout = common.rpcHelloTimeout
        configuration.maximumConnections = common.rpcMaxConnections
        configuration.callers = common.rpcCallers
        configuration.tls = common.rpcTLS
        if let callers = common.rpcCallers {
            logger.info("RPC callers named", metadata: ["rpc.callers": "\(callers.callers.keys.sorted().joined(separator: ","))"])
        } else if common.environment == .production {
            logger.warning("RPC_CALLERS is not set: every holder of SERVICE_TOKEN may call every method")
        }
        return try await RPCServer.bind(configuration: configuration, router: router, logger: logger)
    }

    /// The operations server on `RPC_HOST:OPS_PORT` (0 picks a free port), answering
    /// `/readyz` with `checks`.
    public static func opsServer(common: CommonConfiguration, checks: [HealthCheck], logger: Logger) -> OpsServer {
        OpsServer(host: common.rpcHost, port: common.opsPort, checks: checks, logger: logger)
    }

    /// Runs `body` until it succeeds or `timeout` passes, so a service started together with
    /// its database (docker compose) waits for it instead of exiting.
    public static func retryingAtStart(
        _ what: String, timeout: Duration, logger: Logger, _ body: () async throws -> Void
    ) async throws {
        let deadline = ContinuousClock.now + timeout
        var delay = Duration.milliseconds(200)
        while true {
            do {
                return try await body()
            } catch {
                guard ContinuousClock.now + delay < deadline else { throw error }
                logger.warning("\(what) not ready, retrying", metadata: ["error": "\(error)"])
                try await Task.sleep(for: delay)
                delay = min(delay * 2, .seconds(3))
            }
        }
    }
}

/// The version every service reports in `hello`.
public let latchkeyVersion = "0.1.0"

/// A service that does nothing until graceful shutdown, then runs `action`: closes a pool
/// after everything started later (and so stopped earlier) has drained.
public struct ShutdownAction: Service {
    let action: @Sendable () async -> Void

    public init(_ action: @escaping @Sendable () async -> Void) {
        self.action = action
    }

    public func run() async throws {
        try? await gracefulShutdown()
        await self.action()
    }
}

extension HealthCheck {
    public static func redis(_ client: RedisClient) -> HealthCheck {
        HealthCheck("redis") { try await client.ping() }
    }
}
