import Logging
import NIOCore
import NIOPosix
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Owns one pub/sub connection and the thread that reads it, feeding an `AsyncStream`.
///
/// The reader blocks in `poll` on the socket and on a `WakePipe` until a message arrives, the
/// next `PING` is due, or `cancel()` wakes it. A lost connection is reopened with backoff and
/// resubscribed (the backoff's wait also ends at a cancel); an idle one is probed with `PING`
/// so a silently dead peer is noticed too.
final class RedisSubscriber: Sendable {
    static let pingAfterSilence = TimeAmount.seconds(10)

    let channels: [String]
    private let configuration: RedisConfiguration
    private let logger: Logger
    private let continuation: AsyncStream<RedisMessage>.Continuation
    private let onFinish: @Sendable (RedisSubscriber) -> Void
    private let onStatus: (@Sendable (RedisSubscription.Status) -> Void)?
    private let thread = NIOThreadPool(numberOfThreads: 1)
    private let isCancelled = Atomic<Bool>(false)
    private let wake = WakePipe()

    init(
        channels: [String], configuration: RedisConfiguration, logger: Logger,
        continuation: AsyncStream<RedisMessage>.Continuation,
        onStatus: (@Sendable (RedisSubscription.Status) -> Void)? = nil,
        onFinish: @escaping @Sendable (RedisSubscriber) -> Void
    ) {
        self.channels = channels
        self.configuration = configuration
        var logger = logger
        logger[metadataKey: "redis.channels"] = "\(channels.joined(separator: ","))"
        self.logger = logger
        self.continuation = continuation
        self.onFinish = onFinish
        self.onStatus = onStatus
        thread.start()  // now, so a `stop()` racing `start()` always finds a pool to shut down
    }

    /// Opens the connection and subscribes (throwing if that fails), then starts reading.
    func start() async throws {
        let connection: RedisConnection
        do {
            connection = try await thread.runIfActive { () throws(RedisError) in try self.openSubscribed() }
        } catch {
            let stopped = isCancelled.load(ordering: .relaxed)
            finish()
            throw stopped ? RedisError.connectionFailed("the subscription was stopped while subscribing") : error
        }
        thread.submit { state in
            // A pool shut down meanwhile runs the item at once on this caller's thread: don't block it.
            guard case .active = state else { return self.finish() }
            self.readLoop(connection)
        }
    }

    /// Ends the stream now and wakes the reader thread, which closes the connection.
    func cancel() {
        guard !isCancelled.exchange(true, ordering: .relaxed) else { return }
        continuation.finish()
        wake.signal()
    }

    /// Cancels and waits until the reader thread has exited.
    func stop() async {
        cancel()
        try? await thread.shutdownGracefully()
    }

    private func openSubscribed() throws(RedisError) -> RedisConnection {
        let connection = try RedisConnection(
            url: configuration.url, tlsContext: configuration.tls, connectTimeout: configuration.connectTimeout,
            commandTimeout: configuration.commandTimeout)
        // Redis subscribes to every channel before the first confirmation, so once it
        // arrives the subscription is live; the other confirmations are skipped by the loop.
        switch try connection.execute(RedisCommand(["SUBSCRIBE"] + channels)) {
        case .error(let message): throw .server(message)
        case .array(let parts) where parts.first?.stringValue == "subscribe": return connection
        case let other: throw .protocolError("unexpected SUBSCRIBE reply \(other)")
        }
    }

    private func readLoop(_ first: RedisConnection) {
        var connection: RedisConnection? = first
        var lastHeard = NIODeadline.now()
        var pingSent = false
        while !isCancelled.load(ordering: .relaxed) {
            guard let current = connection else {
                connection = reconnect()
                lastHeard = .now()
                pingSent = false
                continue
            }
            do {
                // Silent for `pingAfterSilence`: PING; silent `commandTimeout` more: lost.
                let due = lastHeard + Self.pingAfterSilence + (pingSent ? TimeAmount(configuration.commandTimeout) : .zero)
                let now = NIODeadline.now()
                if now >= due {
                    guard !pingSent else { throw RedisError.timeout }
                    try current.send(RedisCommand(["PING"]))
                    pingSent = true
                    continue
                }
                let milliseconds = Int32(clamping: (due - now).nanoseconds / 1_000_000 + 1)
                if let reply = try current.readReply(waitingUpTo: milliseconds, wakingOn: wake.descriptor) {
                    lastHeard = .now()
                    pingSent = false
                    deliver(reply)
                }
            } catch {
                logger.warning("Redis subscription connection lost; resubscribing", metadata: ["redis.error": "\(error)"])
                connection = nil
                onStatus?(.interrupted)
            }
        }
        connection = nil
        finish()
    }

    /// Reopens and resubscribes with capped exponential backoff; nil only once cancelled.
    private func reconnect() -> RedisConnection? {
        var delay: TimeAmount = .milliseconds(100)
        while !isCancelled.load(ordering: .relaxed) {
            do {
                let connection = try openSubscribed()
                logger.info("Redis subscription resubscribed")
                onStatus?(.resubscribed)
                return connection
            } catch {
                logger.debug("Redis subscription cannot reconnect yet", metadata: ["redis.error": "\(error)"])
            }
            sleepUnlessCancelled(delay)
            delay = min(delay * 2, .seconds(2))
        }
        return nil
    }

    /// Waits `amount`, or less when `cancel()` wakes the thread.
    private func sleepUnlessCancelled(_ amount: TimeAmount) {
        wake.wait(milliseconds: Int32(clamping: amount.nanoseconds / 1_000_000))
    }

    private func deliver(_ reply: RedisValue) {
        guard case .array(let parts) = reply, parts.count == 3, parts[0] == .string("message") else {
            return  // subscribe confirmations and PING replies
        }
        continuation.yield(RedisMessage(channel: Self.text(parts[1]), payload: Self.text(parts[2])))
    }

    private static func text(_ value: RedisValue) -> String {
        switch value {
        case .string(let text): text
        case .bytes(let bytes): String(decoding: bytes, as: UTF8.self)
        default: ""
        }
    }

    /// Ends the stream, leaves the client's registry, and lets the thread stop once this job returns.
    private func finish() {
        isCancelled.store(true, ordering: .relaxed)
        continuation.finish()
        onFinish(self)
        thread.shutdownGracefully { _ in }
    }
}
