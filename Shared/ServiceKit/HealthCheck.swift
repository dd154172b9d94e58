import Logging
import ServiceProtocol

/// One dependency a service checks for `health`: a name and a probe that throws when it fails.
public struct HealthCheck: Sendable {
    public var name: String
    public var probe: @Sendable () async throws -> Void

    public init(_ name: String, probe: @escaping @Sendable () async throws -> Void) {
        self.name = name
        self.probe = probe
    }

    /// Runs every check concurrently; a failing one reports `unavailable`, never its error text.
    public static func run(_ checks: [HealthCheck], logger: Logger) async -> Health.Result {
        await withTaskGroup(of: (String, String).self) { group in
            for check in checks {
                group.addTask {
                    do {
                        try await check.probe()
                        return (check.name, "ok")
                    } catch {
                        logger.warning("Health check failed", metadata: ["check": "\(check.name)", "error": "\(error)"])
                        return (check.name, "unavailable")
                    }
                }
            }
            var results: [String: String] = [:]
            for await (name, status) in group { results[name] = status }
            return Health.Result(checks: results)
        }
    }
}

extension RPCRouter {
    /// Registers the `health` method over `checks`.
    public mutating func registerHealth(_ checks: [HealthCheck], logger: Logger) {
        self.register(Health.method) { (_: Empty, _) in
            await HealthCheck.run(checks, logger: logger)
        }
    }
}
