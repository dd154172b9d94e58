import Logging
import ServiceLifecycle

/// Reads the key folder every `interval`, so every replica picks up a key added for rotation.
struct KeyReloader: Service {
    let keyRing: KeyRing
    let interval: Duration
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try? await Task.sleep(for: self.interval)
                guard !Task.isCancelled else { break }
                await self.keyRing.reload(logger: self.logger)
            }
        }
    }
}
