extension RedisClient {
    /// Subscribes to `channel` on a dedicated connection. When this returns, the
    /// subscription is active: a message published afterwards will be delivered.
    public func subscribe(
        to channel: String, onStatus: (@Sendable (RedisSubscription.Status) -> Void)? = nil
    ) async throws -> RedisSubscription {
        try await subscribe(to: [channel], onStatus: onStatus)
    }

    /// Subscribes to several channels on one dedicated connection.
    ///
    /// `onStatus`, when given, is called on the subscription's reader thread the moment the
    /// connection is found lost (messages published from then on until it is back are missed)
    /// and again once it is resubscribed: a reader that caches what the messages invalidate
    /// drops its cache on the first and may fill it again after the second.
    public func subscribe(
        to channels: [String], onStatus: (@Sendable (RedisSubscription.Status) -> Void)? = nil
    ) async throws -> RedisSubscription {
        guard !channels.isEmpty else { throw RedisError.protocolError("no channel to subscribe to") }
        let (stream, continuation) = AsyncStream.makeStream(of: RedisMessage.self)
        let subscriber = RedisSubscriber(
            channels: channels, configuration: configuration, logger: logger, continuation: continuation,
            onStatus: onStatus
        ) { [weak self] finished in
            self?.subscriptions.withLock { _ = $0.subscribers.removeValue(forKey: ObjectIdentifier(finished)) }
        }
        continuation.onTermination = { _ in subscriber.cancel() }
        let registered = subscriptions.withLock { registry in
            guard !registry.isClosed else { return false }
            registry.subscribers[ObjectIdentifier(subscriber)] = subscriber
            return true
        }
        guard registered else { throw RedisError.connectionFailed("the Redis client is shut down") }
        do {
            try await subscriber.start()
        } catch {
            subscriptions.withLock { _ = $0.subscribers.removeValue(forKey: ObjectIdentifier(subscriber)) }
            throw error
        }
        return RedisSubscription(stream: stream, subscriber: subscriber)
    }
}
