import Logging
import ServiceKit
import ServiceLifecycle

/// Keeps the user lifecycle feed `EVENT_RETENTION_DAYS` (30) long: older events are deleted
/// once an hour. A reader whose cursor is older than that resumes at the oldest event kept.
struct EventRetention: Service {
    let feed: EventFeed
    let days: Int
    var interval: Duration = .seconds(3600)
    let logger: Logger

    func run() async throws {
        await everyInterval(self.interval, logger: self.logger, failure: "Event retention failed") {
            let removed = try await self.feed.purge(olderThanDays: self.days)
            if removed > 0 { self.logger.info("Old user events deleted", metadata: ["events.deleted": "\(removed)"]) }
        }
    }
}
