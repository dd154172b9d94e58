import Logging

/// What a method handler knows about the call besides its parameters.
public struct RPCRequestContext: Sendable {
    /// The method called, e.g. `tokens.refresh`.
    public var method: String
    /// The caller's request id (the gateway's `X-Request-ID`), if it sent one.
    public var requestID: String?
    /// The end user the caller acts for (`client_ip`, `user_agent`), when it said so: the
    /// gateway does on calls that the audit trail records (DESIGN.md section 9.3).
    public var origin: RPCCallOrigin?
    /// The service name the caller gave in `hello`.
    public var caller: String
    /// When the caller stops waiting; long work may check it and give up.
    public var deadline: ContinuousClock.Instant?
    /// A logger carrying `rpc.method`, `rpc.caller` and `request.id` metadata.
    public var logger: Logger

    public init(
        method: String, requestID: String? = nil, origin: RPCCallOrigin? = nil, caller: String, deadline: ContinuousClock.Instant? = nil,
        logger: Logger
    ) {
        self.method = method
        self.requestID = requestID
        self.origin = origin
        self.caller = caller
        self.deadline = deadline
        self.logger = logger
    }
}

/// The end user a call is made for, as the gateway saw them: their IP address and user agent.
/// Carried in the envelope (`client_ip`, `user_agent`) only on calls whose change is audited.
public struct RPCCallOrigin: Sendable, Equatable {
    public var clientIP: String?
    public var userAgent: String?

    public init(clientIP: String?, userAgent: String?) {
        self.clientIP = clientIP
        self.userAgent = userAgent
    }
}
