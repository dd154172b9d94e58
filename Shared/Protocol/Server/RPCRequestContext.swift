import Logging

/// What a method handler knows about the call besides its parameters.
public struct RPCRequestContext: Sendable {
    /// The method called, e.g. `tokens.refresh`.
    public var method: String
    /// The caller's request id (the gateway's `X-Request-ID`), if it sent one.
    public var requestID: String?
    /// The service name the caller gave in `hello`.
    public var caller: String
    /// When the caller stops waiting; long work may check it and give up.
    public var deadline: ContinuousClock.Instant?
    /// A logger carrying `rpc.method`, `rpc.caller` and `request.id` metadata.
    public var logger: Logger
}
