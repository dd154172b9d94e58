import Hummingbird
import Logging
import ServiceLifecycle

/// A backend's operations HTTP server (`/healthz`, `/readyz`, `/metrics`, see
/// `addOperationsRoutes`), on `RPC_HOST:OPS_PORT`. Start it before the RPC server in the
/// service list so it drains after it: probes keep answering while requests finish.
public struct OpsServer: Service {
    private let application: any Service

    /// `onRunning` receives the port listened on (useful with port 0).
    public init(
        host: String, port: Int, checks: [HealthCheck], logger: Logger,
        onRunning: @escaping @Sendable (_ port: Int) async -> Void = { _ in }
    ) {
        let router = Router()
        addOperationsRoutes(to: router, checks: checks)
        self.application = Application(
            router: router, configuration: .init(address: .hostname(host, port: port)),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? port) }, logger: logger)
    }

    public func run() async throws {
        try await self.application.run()
    }
}
