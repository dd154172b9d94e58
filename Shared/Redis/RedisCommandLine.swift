import Synchronization

/// Commands of concurrent callers sent together: while one pipeline is out, the commands that
/// come wait, and the first of them, once it is answered, sends them all as the next pipeline.
/// Under load many requests share one hop to a pool thread and one round trip instead of one
/// each (the gateway's DPoP replay checks: docs/benchmarks.md); alone, a command goes at once.
/// Each caller gets its own reply; an error reply throws `.server` for its caller only, and a
/// failed pipeline fails every command in it.
///
/// A lock, not an actor: every caller passes here on a request's path.
public final class RedisCommandLine: Sendable {
    private enum Turn: Sendable {
        case answered(RedisValue)
        case failed(RedisError)
        /// The previous pipeline is answered: send the next one.
        case lead
    }

    private struct Waiting: Sendable {
        let arguments: [String]
        let continuation: CheckedContinuation<Turn, Never>
    }

    private struct State {
        var sending = false
        var waiting: [Waiting] = []
    }

    private let redis: RedisClient
    private let state = Mutex(State())

    public init(redis: RedisClient) {
        self.redis = redis
    }

    /// Runs one command, in the next pipeline out; its reply, or `.server` for an error reply.
    public func run(_ arguments: [String]) async throws -> RedisValue {
        let leads = self.state.withLock { state in
            guard !state.sending else { return false }
            state.sending = true
            return true
        }
        if leads { return try await self.send(leading: arguments) }
        let turn = await withCheckedContinuation { (continuation: CheckedContinuation<Turn, Never>) in
            let leadsNow = self.state.withLock { state in
                guard state.sending else {
                    state.sending = true
                    return true
                }
                state.waiting.append(Waiting(arguments: arguments, continuation: continuation))
                return false
            }
            if leadsNow { continuation.resume(returning: .lead) }
        }
        switch turn {
        case .answered(let reply): return reply
        case .failed(let error): throw error
        case .lead: return try await self.send(leading: arguments)
        }
    }

    /// Sends `arguments` with every command waiting now; then hands the line to the first that
    /// came meanwhile, and answers the others.
    private func send(leading arguments: [String]) async throws -> RedisValue {
        let batch = self.state.withLock { state in
            defer { state.waiting.removeAll(keepingCapacity: true) }
            return state.waiting
        }
        let outcome: Result<[RedisValue], RedisError>
        do {
            outcome = .success(try await self.redis.pipeline([arguments] + batch.map(\.arguments)))
        } catch let error as RedisError {
            outcome = .failure(error)
        } catch {
            outcome = .failure(.connectionLost)
        }
        let next = self.state.withLock { state -> Waiting? in
            guard !state.waiting.isEmpty else {
                state.sending = false
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.continuation.resume(returning: .lead)
        switch outcome {
        case .success(let replies):
            for (waiting, reply) in zip(batch, replies.dropFirst()) {
                if case .error(let message) = reply {
                    waiting.continuation.resume(returning: .failed(.server(message)))
                } else {
                    waiting.continuation.resume(returning: .answered(reply))
                }
            }
            guard let own = replies.first else { throw RedisError.protocolError("no reply to a pipelined command") }
            if case .error(let message) = own { throw RedisError.server(message) }
            return own
        case .failure(let error):
            for waiting in batch { waiting.continuation.resume(returning: .failed(error)) }
            throw error
        }
    }
}
