/// Everything that can go wrong talking to Redis. Messages never carry a password.
public enum RedisError: Error, Sendable, Equatable {
    /// `REDIS_URL` could not be parsed; the text says why (with the password redacted).
    case invalidURL(String)
    /// A connection could not be opened, authenticated or switched to its database.
    case connectionFailed(String)
    /// An open connection broke (EOF, reset) before the reply arrived; it was discarded.
    case connectionLost
    /// The server answered with an error reply, e.g. `ERR value is not an integer`.
    case server(String)
    /// A reply did not arrive within `commandTimeout`; the connection was discarded.
    case timeout
    /// A command waited longer than `poolTimeout` for a free connection.
    case poolTimeout
    /// The bytes on the wire were not valid RESP, or a reply had an unexpected shape.
    case protocolError(String)
}
