import CoreMetrics
import FoundationEssentials
import Logging
import NIOCore
import NIOFoundationEssentialsCompat
import NIOPosix
import ServiceLifecycle
import Synchronization

/// A pooled client of one service, over all of that service's endpoints.
///
/// `run()` (a `Service`) keeps `slotsPerAddress` authenticated connections to every address the
/// endpoints resolve to, spread over the event loops, reconnecting with backoff and re-resolving
/// names periodically. `call` picks a healthy connection round robin (one on its own event loop
/// when there is one) and retries on another one only when that is safe: the request never
/// left, or the caller marked the call idempotent.
///
/// A lock, not an actor: every call picks a connection (a per-request hot path), and connections register from NIO callbacks.
public final class RPCClient: Service, Sendable {
    /// Client settings; every field but the endpoints and token has a default.
    public struct Configuration: Sendable {
        /// Where the service listens; a DNS name stands for all its addresses.
        public var endpoints: [RPCEndpoint]
        /// The called service's name, for messages and logs.
        public var serviceName: String
        /// Our own name, sent in `hello`.
        public var callerName: String
        /// The shared `SERVICE_TOKEN`.
        public var serviceToken: String
        /// Mutual TLS (`RPC_TLS_*`); nil: plain TCP.
        public var tls: RPCTLS?
        /// Connections to each address; by default one per event loop of the client's group (at
        /// least 2, at most 16, so that a server's `RPC_MAX_CONNECTIONS` still admits many
        /// callers), so that a call finds one on the loop it runs on (see `eventLoop(for:)`).
        public var connectionsPerAddress: Int?
        /// Deadline of a call that sets none.
        public var callTimeout: Duration = .seconds(5)
        public var connectTimeout: Duration = .seconds(2)
        /// How long bytes sent on a connection may go unacknowledged by the server's kernel
        /// before the connection is dropped (`TCP_USER_TIMEOUT`). A server that vanished without
        /// closing its connections (a killed container whose network went with it) then fails
        /// its calls after about this long and an idempotent one is retried on another replica,
        /// where it would otherwise wait out its deadline. A slow server is not affected: its
        /// kernel acknowledges what it has not answered yet.
        public var unacknowledgedTimeout: Duration = .seconds(2)
        public var minimumBackoff: Duration = .milliseconds(50)
        public var maximumBackoff: Duration = .seconds(5)
        /// How often DNS names are resolved again.
        public var resolveInterval: Duration = .seconds(10)
        public var maximumFrameSize: Int = 1 << 20
        /// Most connections tried by one call before it gives up.
        public var maximumAttempts: Int = 4

        public init(endpoints: [RPCEndpoint], serviceName: String, callerName: String, serviceToken: String) {
            self.endpoints = endpoints
            self.serviceName = serviceName
            self.callerName = callerName
            self.serviceToken = serviceToken
        }
    }

    /// How one call behaves.
    public struct CallOptions: Sendable {
        /// How long to wait; the configuration's `callTimeout` when nil.
        public var timeout: Duration?
        /// Whether running the call twice is harmless; only then is a call that may have
        /// reached a server retried on another one.
        public var idempotent: Bool
        /// Passed to the server for its logs.
        public var requestID: String?
        /// The end user the call is made for, sent on calls the server audits.
        public var origin: RPCCallOrigin?

        public init(timeout: Duration? = nil, idempotent: Bool = false, requestID: String? = nil, origin: RPCCallOrigin? = nil) {
            self.timeout = timeout
            self.idempotent = idempotent
            self.requestID = requestID
            self.origin = origin
        }
    }

    /// One wanted connection to one address; its task keeps it open.
    struct Slot: Hashable {
        var address: String
        var index: Int
    }

    struct State {
        var healthy: [RPCClientConnection] = []
        var next = 0
        var wanted: Set<Slot> = []
        var live: [Slot: RPCClientConnection] = [:]
        var addresses: [String: SocketAddress] = [:]
        /// Calls waiting for a connection to become healthy, woken by `register` (or their deadline).
        var waiters: [UInt64: Waiter] = [:]
        var nextWaiter: UInt64 = 0
    }

    /// A call waiting for a healthy connection; `expired` when its deadline (or cancellation)
    /// came before it could park, so that it does not park at all.
    enum Waiter {
        case waiting(CheckedContinuation<Void, Never>)
        case expired
    }

    public let configuration: Configuration
    let logger: Logger
    let metrics: RPCClientMetrics
    /// The loops of the client's group, which its connections go round.
    let eventLoops: [any EventLoop]
    let state = Mutex(State())

    public init(configuration: Configuration, logger: Logger, eventLoopGroup: MultiThreadedEventLoopGroup = .singleton) {
        self.configuration = configuration
        var logger = logger
        logger[metadataKey: "rpc.service"] = "\(configuration.serviceName)"
        self.logger = logger
        self.metrics = RPCClientMetrics(service: configuration.serviceName)
        self.eventLoops = Array(eventLoopGroup.makeIterator())
    }

    /// How many connections each address gets: `connectionsPerAddress`, or one per loop (2–16).
    var slotsPerAddress: Int {
        self.configuration.connectionsPerAddress ?? min(max(2, self.eventLoops.count), 16)
    }

    /// The number of connections ready for calls.
    public var healthyConnectionCount: Int {
        self.state.withLock { $0.healthy.count }
    }

    /// Calls `method` and decodes its result; throws `RPCError`. Counted and timed per
    /// method (`RPCClientMetrics`).
    public func call<Params: Encodable & Sendable, Result: Decodable & Sendable>(
        _ method: String, _ params: Params, as resultType: Result.Type = Result.self, options: CallOptions = CallOptions()
    ) async throws -> Result {
        let paramsJSON: Data
        do {
            paramsJSON = try JSONCoders.encode(params)
        } catch {
            throw RPCError.badRequest("Parameters of \(method) cannot be encoded")
        }
        return try await self.perform(method, options: options) { connection, deadline in
            try await connection.send(
                method, paramsJSON: paramsJSON, deadline: deadline, requestID: options.requestID, origin: options.origin
            ) { try JSONCoders.decode(Result.self, from: $0) }
        }
    }

    /// Calls `method` with parameters that are already a JSON object and returns the result's
    /// JSON bytes as the server sent them: for a caller that passes results through (the
    /// gateway) without decoding and encoding them again.
    public func callJSON(_ method: String, params paramsJSON: Data, options: CallOptions = CallOptions()) async throws -> ByteBuffer {
        try await self.perform(method, options: options) { connection, deadline in
            try await connection.send(
                method, paramsJSON: paramsJSON, deadline: deadline, requestID: options.requestID, origin: options.origin
            ) { $0 }
        }
    }

    /// Runs one call, recording its outcome and duration in the client's metrics.
    private func perform<Result: Sendable>(
        _ method: String, options: CallOptions,
        _ send: (RPCClientConnection, ContinuousClock.Instant) async throws -> Result
    ) async throws -> Result {
        let metrics = self.metrics.method(method)
        let start = ContinuousClock.now
        do {
            let result = try await self.attempt(method, options: options, retries: metrics.retries, send)
            metrics.calls.record(nil, since: start)
            return result
        } catch {
            metrics.calls.record((error as? RPCError)?.code ?? .serviceUnavailable, since: start)
            throw error
        }
    }

    /// Tries healthy connections in turn, round robin, until one answers, the call may not be
    /// retried (see the type's documentation), or `maximumAttempts` were made.
    private func attempt<Result: Sendable>(
        _ method: String, options: CallOptions, retries: Counter,
        _ send: (RPCClientConnection, ContinuousClock.Instant) async throws -> Result
    ) async throws -> Result {
        let deadline = ContinuousClock.now + (options.timeout ?? self.configuration.callTimeout)
        var tried: Set<ObjectIdentifier> = []
        var lastError: RPCError?
        while tried.count < self.configuration.maximumAttempts {
            guard let connection = try await self.connection(excluding: tried, until: deadline) else { break }
            if !tried.isEmpty { retries.increment() }
            tried.insert(ObjectIdentifier(connection))
            do {
                return try await send(connection, deadline)
            } catch RPCCallFailure.notSent {
                lastError = self.unavailable("could not send to")
            } catch RPCCallFailure.connectionLost {
                lastError = self.unavailable("lost the connection to")
                if !options.idempotent { break }
            } catch RPCCallFailure.deadlineExceeded {
                throw RPCError(.deadlineExceeded, "\(self.configuration.serviceName) did not answer \(method) in time")
            } catch let error as RPCError {
                guard options.idempotent, error.retryable, error.code != .deadlineExceeded else { throw error }
                lastError = error
            }
        }
        throw lastError ?? self.unavailable("no connection to")
    }

    private func unavailable(_ what: String) -> RPCError {
        RPCError(.serviceUnavailable, "The service is unavailable (\(what) \(self.configuration.serviceName))", retryable: true)
    }

    /// The next healthy connection not yet tried by this call (see `pick(excluding:)`); waits for
    /// one while none is healthy, until the deadline. Nil when every healthy one was tried.
    private func connection(excluding tried: Set<ObjectIdentifier>, until deadline: ContinuousClock.Instant) async throws -> RPCClientConnection? {
        while true {
            switch self.pick(excluding: tried) {
            case .connection(let connection): return connection
            case .allTried: return nil
            case .noneHealthy:
                guard ContinuousClock.now < deadline else { return nil }
                await self.waitForHealthyConnection(until: deadline)
                try Task.checkCancellation()
            }
        }
    }

    /// Returns once a connection is healthy (`register` wakes the waiters), at `deadline`, or
    /// when the calling task is cancelled, whichever comes first.
    private func waitForHealthyConnection(until deadline: ContinuousClock.Instant) async {
        let id = self.state.withLock { state in
            defer { state.nextWaiter &+= 1 }
            return state.nextWaiter
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await withCheckedContinuation { continuation in
                    let parked = self.state.withLock { state in
                        if !state.healthy.isEmpty || state.waiters.removeValue(forKey: id) != nil { return false }
                        state.waiters[id] = .waiting(continuation)
                        return true
                    }
                    if !parked { continuation.resume() }
                }
            }
            group.addTask {
                try? await Task.sleep(until: deadline, clock: .continuous)
            }
            await group.next()
            group.cancelAll()
            // Whichever ended first, the other must end too: wake the parked call, or keep it
            // from parking.
            let parked = self.state.withLock { state -> CheckedContinuation<Void, Never>? in
                switch state.waiters.removeValue(forKey: id) {
                case .waiting(let continuation): return continuation
                case .expired, nil:
                    state.waiters[id] = .expired
                    return nil
                }
            }
            parked?.resume()
        }
        // Both children ended: nothing of this call is left in the state.
        self.state.withLock { _ = $0.waiters.removeValue(forKey: id) }
    }

    /// What `pick(excluding:)` found.
    enum Pick {
        case connection(RPCClientConnection)
        case noneHealthy
        case allTried
    }

    /// The next healthy connection not yet tried, round robin, preferring those on the event
    /// loop the caller runs on: the reply, read on the connection's loop, then resumes the
    /// caller without a hop to another thread (and its request leaves without one).
    func pick(excluding tried: Set<ObjectIdentifier>) -> Pick {
        self.state.withLock { state in
            let count = state.healthy.count
            if count == 0 { return .noneHealthy }
            var elsewhere: Int?
            for step in 1...count {
                let index = (state.next + step) % count
                let candidate = state.healthy[index]
                guard !tried.contains(ObjectIdentifier(candidate)) else { continue }
                if candidate.channel.eventLoop.inEventLoop {
                    state.next = index
                    return .connection(candidate)
                }
                elsewhere = elsewhere ?? index
            }
            guard let elsewhere else { return .allTried }
            state.next = elsewhere
            return .connection(state.healthy[elsewhere])
        }
    }
}
