import Foundation
import Logging
import NIOCore
import NIOFoundationCompat

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

    /// Checks the first frame: it must be a `hello` with the service token (compared in
    /// constant time) and a protocol version we speak. Returns the reply and, when accepted,
    /// the caller's name.
    func handshake(_ frame: ByteBuffer) -> (ByteBuffer, String?) {
        let request = try? IncomingRequest(frame)
        let id = request?.id ?? 0
        guard let request, request.method == Hello.method,
            let params = try? IncomingRequest.decode(Hello.Params.self, from: request.params),
            constantTimeEquals(params.token, self.configuration.serviceToken)
        else {
            return (RPCRouter.encodeError(RPCError(.unauthenticated, "Send a hello with a valid service token first"), id: id), nil)
        }
        guard params.protocol == rpcProtocolVersion else {
            return (RPCRouter.encodeError(RPCError(.unauthenticated, "Unsupported protocol version \(params.protocol)"), id: id), nil)
        }
        let result = Hello.Result(
            service: self.configuration.serviceName, version: self.configuration.serviceVersion,
            protocol: rpcProtocolVersion, methods: [Hello.method] + self.router.methods)
        let reply = (try? JSONCoders.encode(result)).map { EnvelopeWriter.result(id: id, result: $0) }
            ?? RPCRouter.encodeError(.internalError, id: id)
        return (reply, params.service)
    }

    /// Answers one request frame; never throws, every failure becomes an error response.
    func respond(to frame: ByteBuffer, caller: String, logger: Logger) async -> ByteBuffer {
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
            method: request.method, requestID: request.requestID, caller: caller, deadline: deadline, logger: logger)
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
    let a = Array(lhs.utf8)
    let b = Array(rhs.utf8)
    var difference = UInt8(truncatingIfNeeded: a.count ^ b.count) | (a.count == b.count ? 0 : 1)
    for index in 0..<max(a.count, b.count) {
        let x = index < a.count ? a[index] : 0
        let y = index < b.count ? b[index] : 0
        difference |= x ^ y
    }
    return difference == 0
}

extension Duration {
    /// The duration in milliseconds, with fractions.
    public var milliseconds: Double {
        let (seconds, attoseconds) = self.components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }
}
