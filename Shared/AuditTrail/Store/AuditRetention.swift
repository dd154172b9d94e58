import Logging
import ServiceKit
import ServiceLifecycle

/// Keeps a trail `AUDIT_RETENTION_DAYS` long: deletes older events once an hour (and once at
/// start, after the first hour's wait as every periodic service here).
public struct AuditRetention: Service {
    let trail: AuditTrail
    let days: Int
    let interval: Duration
    let logger: Logger

    public init(trail: AuditTrail, days: Int, interval: Duration = .seconds(3600), logger: Logger) {
        self.trail = trail
        self.days = days
        self.interval = interval
        self.logger = logger
    }

    public func run() async throws {
        await everyInterval(self.interval, logger: self.logger, failure: "Audit retention failed") {
            let removed = try await self.trail.purge(olderThanDays: self.days)
            if removed > 0 { self.logger.info("Old audit events deleted", metadata: ["audit.deleted": "\(removed)"]) }
        }
    }
}
