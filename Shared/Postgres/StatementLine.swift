import FoundationEssentials
import Synchronization

/// Calls that run as statements, a few at once per key; the calls that come while those run
/// wait here in the order they came, and when a statement ends, the calls waiting go
/// together as the next one (up to `callsPerStatement` calls and `entriesPerStatement`
/// entries). Each call keeps its own answer and error; a call that finds a place free runs at
/// once, alone, so nothing waits for company.
///
/// The lines (`ContentStore` in content-state, `RefreshRotation` and `SessionStore` in tokens):
/// each user's writes, keyed by user (`content.write_batch` runs one user's writers one at a time;
/// without the line every writer of a busy user waited for the user's row lock on a pool connection
/// of its own); those users' calls, under one key (calls of different users that waited together
/// run as one `content.write_users`); the page reads of every user, keyed by statement (reads that
/// waited together run as one statement over all their users); the state queries of every user,
/// under one key (one `UNION ALL` statement); and `tokens`' rotations and new sessions, each under
/// one key (one statement, one commit). All spend far less of Postgres per call when calls go
/// together: the statement's own work (a lock, a version row, a commit; a snapshot, a plan's start,
/// a round trip) is paid once. See docs/benchmarks.md.
///
/// A waiting call is not given up when its caller is cancelled: it runs when its turn comes.
///
/// A lock, not an actor: every write and page read joins a line here (a per-request hot path).
public final class StatementLine<Key: Hashable & Sendable, Call: Sendable, Outcome: Sendable>: Sendable {
    /// How many statements of one key run at once.
    public let statementsAtOnce: Int
    /// How many calls one statement carries at most.
    public let callsPerStatement: Int
    /// How many entries (say, items) one statement carries at most, counted by `entries`; a
    /// single call larger than that still runs, alone.
    public let entriesPerStatement: Int
    @usableFromInline let entries: @Sendable (Call) -> Int

    public init(
        statementsAtOnce: Int = 2, callsPerStatement: Int = 16, entriesPerStatement: Int = 500,
        entries: @escaping @Sendable (Call) -> Int = { _ in 1 }
    ) {
        precondition(statementsAtOnce > 0 && callsPerStatement > 0)
        self.statementsAtOnce = statementsAtOnce
        self.callsPerStatement = callsPerStatement
        self.entriesPerStatement = entriesPerStatement
        self.entries = entries
    }

    // The line's parts are visible to inlined code (`@usableFromInline`, `@inlinable`), so that
    // each service's lines are specialized for their key, call and outcome in the service's own
    // module: unspecialized, a write looked up the generic metadata of these types at run time
    // (`swift_getGenericMetadata`, ~5 % of content-state's samples on the 64-user PUT).

    /// What a waiting call is handed when its turn comes.
    @usableFromInline enum Turn: Sendable {
        /// Run this call, with the calls that waited behind it, as the next statement.
        case lead(followers: [Waiter])
        /// Another call's statement ran this one.
        case done(Result<Outcome, any Error>)
    }

    @usableFromInline struct Waiter: Sendable {
        @usableFromInline let call: Call
        @usableFromInline let continuation: CheckedContinuation<Turn, Never>

        @inlinable init(call: Call, continuation: CheckedContinuation<Turn, Never>) {
            self.call = call
            self.continuation = continuation
        }
    }

    @usableFromInline struct Line {
        @usableFromInline var running = 0
        @usableFromInline var waiting: [Waiter] = []

        @inlinable init() {}
    }

    /// Per key with a statement running.
    @usableFromInline let lines = Mutex<[Key: Line]>([:])

    /// Runs `call` when a place of `key` is free, as a `statement` of the calls that waited
    /// with it (in the order they came; alone when none did). The statement answers each
    /// call, in that order; when it throws, every call it carried fails with its error.
    @inlinable public func run(
        _ call: Call, for key: Key, _ statement: ([Call]) async throws -> [Result<Outcome, any Error>]
    ) async throws -> Outcome {
        let turn: Turn
        if self.lines.withLock({ self.tryEnter(key, &$0) }) {
            turn = .lead(followers: [])
        } else {
            turn = await withCheckedContinuation { (continuation: CheckedContinuation<Turn, Never>) in
                let entered = self.lines.withLock { lines in
                    if self.tryEnter(key, &lines) { return true }
                    lines[key]!.waiting.append(Waiter(call: call, continuation: continuation))
                    return false
                }
                if entered { continuation.resume(returning: .lead(followers: [])) }
            }
        }
        switch turn {
        case .done(let result):
            return try result.get()
        case .lead(let followers):
            defer { self.leave(key) }
            var results: [Result<Outcome, any Error>]
            do {
                results = try await statement([call] + followers.map(\.call))
                precondition(results.count == followers.count + 1, "one answer per call")
            } catch {
                results = Array(repeating: .failure(error), count: followers.count + 1)
            }
            for (follower, result) in zip(followers, results.dropFirst()) {
                follower.continuation.resume(returning: .done(result))
            }
            return try results[0].get()
        }
    }

    /// The keys with a statement running here (for tests).
    public var busyKeys: Int { self.lines.withLock { $0.count } }

    /// The statements of `key` running and the calls waiting (for tests).
    public func calls(of key: Key) -> (running: Int, waiting: Int) {
        self.lines.withLock { lines in (lines[key]?.running ?? 0, lines[key]?.waiting.count ?? 0) }
    }

    /// Takes a place if one is free; false if the caller has to wait.
    @inlinable func tryEnter(_ key: Key, _ lines: inout [Key: Line]) -> Bool {
        let running = lines[key]?.running ?? 0
        guard running < self.statementsAtOnce else { return false }
        lines[key, default: Line()].running = running + 1
        return true
    }

    /// Hands the place on to the first call waiting, with the calls behind it that fit in
    /// its statement, or frees it.
    @inlinable func leave(_ key: Key) {
        let next = self.lines.withLock { lines -> (leader: Waiter, followers: [Waiter])? in
            // Only the counts are read out: a copy of the line held while its queue shrinks
            // would copy the queue. The queue is changed in place.
            guard let running = lines[key]?.running else { return nil }
            if lines[key]!.waiting.isEmpty {
                if running > 1 {
                    lines[key]!.running -= 1
                } else {
                    lines[key] = nil
                }
                return nil
            }
            let leader = lines[key]!.waiting.removeFirst()
            var taken = self.entries(leader.call)
            var followers: [Waiter] = []
            while followers.count + 1 < self.callsPerStatement, let first = lines[key]!.waiting.first,
                taken + self.entries(first.call) <= self.entriesPerStatement
            {
                taken += self.entries(first.call)
                followers.append(lines[key]!.waiting.removeFirst())
            }
            return (leader, followers)
        }
        if let next {
            next.leader.continuation.resume(returning: .lead(followers: next.followers))
        }
    }
}

/// The key of a line that every call of the process waits in (the cross-user writes and the
/// state queries of content-state, the rotations and new sessions of `tokens`).
public enum AllCalls: Hashable, Sendable {
    case all
}

/// The statement of a line's `calls`: the call's own (`alone`) when it came alone, else
/// `together`, one statement for them all; when that fails in the server (one call's
/// parameter it cannot take, a broken key), each call runs alone (`oneByOne`), so that only a
/// call that fails alone fails.
@inlinable public func runTogether<Call, Outcome>(
    _ calls: [Call], alone: (Call) async throws -> Outcome,
    together: ([Call]) async throws -> [Result<Outcome, any Error>]
) async throws -> [Result<Outcome, any Error>] {
    if calls.count == 1 { return [.success(try await alone(calls[0]))] }
    do {
        return try await together(calls)
    } catch let error as PostgresError where error.failedInTheServer {
        return await oneByOne(calls, alone)
    }
}

/// Runs each of `calls` on its own, in order, each answered with its own result: what a line's
/// statement falls back to when the statement that carried the calls together failed because of
/// one of them, so that only a call that fails alone fails.
@inlinable public func oneByOne<Call, Outcome>(_ calls: [Call], _ run: (Call) async throws -> Outcome) async -> [Result<Outcome, any Error>] {
    var results: [Result<Outcome, any Error>] = []
    results.reserveCapacity(calls.count)
    for call in calls {
        do {
            results.append(.success(try await run(call)))
        } catch {
            results.append(.failure(error))
        }
    }
    return results
}

extension Array where Element == PostgresRow {
    /// The rows of a statement that carried `calls` calls of a line together, each call's rows in
    /// the order they came: `column` names the call of each row, 1-based. A row naming no call of
    /// the statement is a decoding error.
    public func byCall(in column: String, calls: Int) throws -> [[PostgresRow]] {
        var groups = [[PostgresRow]](repeating: [], count: calls)
        guard let first = self.first else { return groups }
        let index = try first.requiredColumnIndex(column)
        for row in self {
            let call = try row.decode(index, as: Int.self) - 1
            guard groups.indices.contains(call) else {
                throw PostgresError.decoding(column: column, message: "no call \(call + 1) in this statement")
            }
            groups[call].append(row)
        }
        return groups
    }
}
