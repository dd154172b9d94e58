/// `hello`: the first frame of every connection.
public enum Hello {
    public static let method = "hello"

    public struct Params: Codable, Sendable {
        /// The caller's service name, for logs.
        public var service: String
        /// The shared `SERVICE_TOKEN`.
        public var token: String
        /// The protocol version the caller speaks.
        public var `protocol`: Int

        public init(service: String, token: String, protocol: Int = rpcProtocolVersion) {
            self.service = service
            self.token = token
            self.protocol = `protocol`
        }
    }

    public struct Result: Codable, Sendable {
        public var service: String
        public var version: String
        public var `protocol`: Int
        public var methods: [String]
    }
}

/// `health`: whether the service and what it depends on work.
public enum Health {
    public static let method = "health"

    public struct Result: Codable, Sendable, Equatable {
        /// `ok` when every check passes, else `degraded`.
        public var status: String
        /// One entry per dependency: `ok` or a short reason.
        public var checks: [String: String]

        public init(checks: [String: String]) {
            self.checks = checks
            self.status = checks.values.allSatisfy { $0 == "ok" } ? "ok" : "degraded"
        }
    }
}
