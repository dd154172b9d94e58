import FoundationEssentials
import Logging
import NIOCore
import NIOFoundationEssentialsCompat

/// What every connection of a server shares: its settings, methods and request decoder.
/// Answers the handshake and each request; knows nothing of channels.
final class RPCServerCore: Sendable {
    let configuration: RPCServer.Configuration
    let router: RPCRouter
    let logger: Logger
    let refusals = RPCConnectionRefusals()

    init(configuration: RPCServer.Configuration, router: RPCRouter, logger: Logger) {
        self.configuration = configuration
        self.router = router
        self.logger = logger
    }

    /// A caller admitted by `hello`: its name and what it may call.
    struct Caller: Sendable {
        var name: String
        var permissions: RPCPermissions
    }

    /// Checks the first frame: it must be a `hello` with a token this server admits (the caller
    /// list's token for the caller it names, or else the service token; compared in constant
    /// time) and a protocol version we speak. Returns the reply and, when accepted, the caller.
    func handshake(_ frame: ByteBuffer) -> (ByteBuffer, Caller?) {
        let request = try? IncomingRequest(frame)
        let id = request?.id ?? 0
        guard let request, request.method == Hello.method,
            let params = try? IncomingRequest.decode(Hello.Params.self, from: request.params),
            let permissions = self.admit(params)
        else {
            return (RPCRouter.encodeError(RPCError(.unauthenticated, "Send a hello with a valid service token first"), id: id), nil)
        }
        guard params.protocol == rpcProtocolVersion else {
            return (RPCRouter.encodeError(RPCError(.unauthenticated, "Unsupported protocol version \(params.protocol)"), id: id), nil)
        }
        let result = Hello.Result(
            service: self.configuration.serviceName, version: self.configuration.serviceVersion,
            protocol: rpcProtocolVersion, methods: [Hello.method] + self.router.methods.filter(permissions.allows))
        let reply = (try? JSONCoders.encode(result)).map { EnvelopeWriter.result(id: id, result: $0) }
            ?? RPCRouter.encodeError(.internalError, id: id)
        return (reply, Caller(name: params.service, permissions: permissions))
    }

    /// What the `hello` may call: with a caller list, its line's methods when the token is its;
    /// without one, everything when the token is the service token.
    private func admit(_ params: Hello.Params) -> RPCPermissions? {
        if let callers = self.configuration.callers {
            return callers.admit(name: params.service, token: params.token)
        }
        return constantTimeEquals(params.token, self.configuration.serviceToken) ? .everything : nil
    }

    /// Answers one request frame; never throws, every failure becomes an error response.
    func respond(to frame: ByteBuffer, caller: Caller, logger: Logger) async -> ByteBuffer {
        let request: IncomingRequest
        do {
            request = try IncomingRequest(frame)
        } catch {
            return RPCRouter.encodeError(.badRequest(error.message), id: error.id)
        }
        guard request.v == nil || request.v == UInt64(rpcProtocolVersion) else {
            return RPCRouter.encodeError(.badRequest("Unsupported envelope version"), id: request.id)
        }
        if request.method == Hello.method {
            return self.handshake(frame).0
        }
        guard let route = self.router.routes[request.method] else {
            self.router.unknownMethod.record(.methodNotFound, since: .now)
            return RPCRouter.encodeError(RPCError(.methodNotFound, "Unknown method \(request.method)"), id: request.id)
        }
        guard caller.permissions.allows(request.method) else {
            // Counted as rpc_server_requests_total{method,code="forbidden"}.
            route.metrics.record(.forbidden, since: .now)
            logger.warning("Call outside the caller's methods", metadata: ["rpc.method": "\(request.method)", "rpc.caller": "\(caller.name)"])
            return RPCRouter.encodeError(RPCError(.forbidden, "\(caller.name) may not call \(request.method)"), id: request.id)
        }
        var deadline: ContinuousClock.Instant?
        if let milliseconds = request.deadlineMs {
            guard milliseconds > 0 else {
                route.metrics.record(.deadlineExceeded, since: .now)
                return RPCRouter.encodeError(RPCError(.deadlineExceeded, "Deadline already passed"), id: request.id)
            }
            deadline = .now + .milliseconds(Int64(clamping: milliseconds))
        }
        var logger = logger
        logger[metadataKey: "rpc.method"] = "\(request.method)"
        if let requestID = request.requestID {
            logger[metadataKey: "request.id"] = "\(requestID)"
        }
        let context = RPCRequestContext(
            method: request.method, requestID: request.requestID, origin: request.origin, caller: caller.name, deadline: deadline, logger: logger)
        let start = ContinuousClock.now
        let response = await route.handler(request.params, request.id, context)
        if logger.logLevel <= .debug {
            logger.debug("RPC handled", metadata: ["rpc.duration_ms": "\((ContinuousClock.now - start).milliseconds)"])
        }
        return response
    }
}

/// Compares two secrets in time that depends only on their lengths, not on where they differ.
public func constantTimeEquals(_ lhs: String, _ rhs: String) -> Bool {
    constantTimeEquals(Array(lhs.utf8), Array(rhs.utf8))
}

extension Duration {
    /// The duration in milliseconds, with fractions.
    public var milliseconds: Double {
        let (seconds, attoseconds) = self.components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }
}
