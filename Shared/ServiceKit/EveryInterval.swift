import Logging
import ServiceLifecycle

/// Runs `work` once per `interval` (after the first wait) until graceful shutdown: the loop of a
/// periodic background service. A failure is logged as `failure` and the next round goes on.
public func everyInterval(
    _ interval: Duration, logger: Logger, failure: Logger.Message, _ work: @escaping @Sendable () async throws -> Void
) async {
    await cancelWhenGracefulShutdown {
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            guard !Task.isCancelled else { break }
            do {
                try await work()
            } catch {
                logger.warning(failure, metadata: ["error": "\(error)"])
            }
        }
    }
}
