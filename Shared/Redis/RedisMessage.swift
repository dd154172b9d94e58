/// A message received on a subscribed channel.
public struct RedisMessage: Sendable, Hashable {
    public var channel: String
    public var payload: String

    public init(channel: String, payload: String) {
        self.channel = channel
        self.payload = payload
    }
}
