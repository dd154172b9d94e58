extension RedisClient {
    /// Subscribes to `channel` on a dedicated connection. When this returns, the
    /// subscription is active: a message published afterwards will be delivered.
    public func subscribe(to channel: String) async throws -> RedisSubscription {
        try await subscribe(to: [channel])
    }

    /// Subscribes to several channels on one dedicated connection.
    public func subscribe(to channels: [String]) async throws -> RedisSubscription {
        guard !channels.isEmpty else { throw RedisError.protocolError("no channel to subscribe to") }
        let (stream, continuation) = AsyncStream.makeStream(of: RedisMessage.self)
        let subscriber = RedisSubscriber(
            channels: channels, configuration: configuration, logger: logger, continuation: continuation
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
