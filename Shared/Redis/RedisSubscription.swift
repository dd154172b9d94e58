/// The messages of a subscription, in the order Redis published them.
///
/// The sequence ends when ``cancel()`` is called, when the consuming task is cancelled,
/// or when the client shuts down; each of these closes the dedicated connection. A
/// dropped connection is reopened and resubscribed behind the scenes (messages published
/// while it was down are lost, as pub/sub never stores them). Messages wait in an
/// unbounded buffer until consumed, so keep the consumer running.
public struct RedisSubscription: AsyncSequence, Sendable {
    public typealias Element = RedisMessage

    let stream: AsyncStream<RedisMessage>
    let subscriber: RedisSubscriber

    public func makeAsyncIterator() -> AsyncStream<RedisMessage>.Iterator {
        stream.makeAsyncIterator()
    }

    /// What happened to the dedicated connection (see ``RedisClient/subscribe(to:onStatus:)``).
    public enum Status: Sendable, Equatable {
        /// The connection was lost; messages are missed until `resubscribed`.
        case interrupted
        /// Subscribed again on a new connection.
        case resubscribed
    }

    /// Ends the sequence (after messages already received) and unsubscribes.
    public func cancel() {
        subscriber.cancel()
    }
}
