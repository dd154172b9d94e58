import Foundation
import Synchronization

/// The writes of each user that this replica runs: at most two statements of a user at once;
/// the writes that come while two run wait here in the order they came, and when a statement
/// ends, the writes waiting go together as the next one (up to 16 writes and 500 items).
///
/// `content.write_batch` runs a user's writers one at a time, with a row lock in Postgres, and
/// that stays the guarantee (several replicas, an account's deletion). Without this line every
/// writer of a busy user waited for that lock on a pool connection of its own, in a backend
/// that sleeps and is woken by a signal: one user writing from many devices or tabs took every
/// pool connection (8 by default), and other users' reads and writes queued behind it. A few
/// statements at once keep the next one waiting in Postgres, so it starts the moment the
/// previous one commits; the rest wait in the service and hold no connection. Writes that
/// waited together run as one statement (`content.write_batch`): the user's lock, version row
/// and commit once for all of them, where Postgres spent most of a lone write's time. Two at
/// once served as many writes as four with less Postgres time per write, and one at a time
/// leaves Postgres idle for a round trip between statements (see docs/benchmarks.md). Each
/// write keeps its own answer and error.
///
/// A waiting write is not given up when its caller is cancelled: it runs when its turn comes.
final class UserWriteLine<Write: Sendable, Outcome: Sendable>: Sendable {
    /// How many statements of one user run at once.
    let statementsAtOnce: Int
    /// How many writes one statement carries at most.
    let writesPerStatement: Int
    /// How many entries (items) one statement carries at most, counted by `entries`; a
    /// single write larger than that still runs, alone.
    let entriesPerStatement: Int
    private let entries: @Sendable (Write) -> Int

    init(
        statementsAtOnce: Int = 2, writesPerStatement: Int = 16, entriesPerStatement: Int = 500,
        entries: @escaping @Sendable (Write) -> Int = { _ in 1 }
    ) {
        precondition(statementsAtOnce > 0 && writesPerStatement > 0)
        self.statementsAtOnce = statementsAtOnce
        self.writesPerStatement = writesPerStatement
        self.entriesPerStatement = entriesPerStatement
        self.entries = entries
    }

    /// What a waiting write is handed when its turn comes.
    private enum Turn: Sendable {
        /// Run this write, with the writes that waited behind it, as the next statement.
        case lead(followers: [Waiter])
        /// Another write's statement ran this one.
        case done(Result<Outcome, any Error>)
    }

    private struct Waiter: Sendable {
        let write: Write
        let continuation: CheckedContinuation<Turn, Never>
    }

    private struct Line {
        var running = 0
        var waiting: [Waiter] = []
    }

    /// Per user with a statement running.
    private let lines = Mutex<[UUID: Line]>([:])

    /// Runs `write` of `user` when its turn comes, as a `statement` of the writes that waited
    /// with it (in the order they came; alone when none did). The statement answers each
    /// write, in that order; when it throws, every write it carried fails with its error.
    func run(
        _ write: Write, for user: UUID, _ statement: ([Write]) async throws -> [Result<Outcome, any Error>]
    ) async throws -> Outcome {
        let turn: Turn
        if self.lines.withLock({ self.tryEnter(user, &$0) }) {
            turn = .lead(followers: [])
        } else {
            turn = await withCheckedContinuation { (continuation: CheckedContinuation<Turn, Never>) in
                let entered = self.lines.withLock { lines in
                    if self.tryEnter(user, &lines) { return true }
                    lines[user]!.waiting.append(Waiter(write: write, continuation: continuation))
                    return false
                }
                if entered { continuation.resume(returning: .lead(followers: [])) }
            }
        }
        switch turn {
        case .done(let result):
            return try result.get()
        case .lead(let followers):
            defer { self.leave(user) }
            var results: [Result<Outcome, any Error>]
            do {
                results = try await statement([write] + followers.map(\.write))
                precondition(results.count == followers.count + 1, "one answer per write")
            } catch {
                results = Array(repeating: .failure(error), count: followers.count + 1)
            }
            for (follower, result) in zip(followers, results.dropFirst()) {
                follower.continuation.resume(returning: .done(result))
            }
            return try results[0].get()
        }
    }

    /// The users with a statement running here (for tests).
    var busyUsers: Int { self.lines.withLock { $0.count } }

    /// The statements of `user` running and the writes waiting (for tests).
    func writes(of user: UUID) -> (running: Int, waiting: Int) {
        self.lines.withLock { lines in (lines[user]?.running ?? 0, lines[user]?.waiting.count ?? 0) }
    }

    /// Takes a place if one is free; false if the caller has to wait.
    private func tryEnter(_ user: UUID, _ lines: inout [UUID: Line]) -> Bool {
        let running = lines[user]?.running ?? 0
        guard running < self.statementsAtOnce else { return false }
        lines[user, default: Line()].running = running + 1
        return true
    }

    /// Hands the place on to the first write waiting, with the writes behind it that fit in
    /// its statement, or frees it.
    private func leave(_ user: UUID) {
        let next = self.lines.withLock { lines -> (leader: Waiter, followers: [Waiter])? in
            // Only the counts are read out: a copy of the line held while its queue shrinks
            // would copy the queue. The queue is changed in place.
            guard let running = lines[user]?.running else { return nil }
            if lines[user]!.waiting.isEmpty {
                if running > 1 {
                    lines[user]!.running -= 1
                } else {
                    lines[user] = nil
                }
                return nil
            }
            let leader = lines[user]!.waiting.removeFirst()
            var taken = self.entries(leader.write)
            var followers: [Waiter] = []
            while followers.count + 1 < self.writesPerStatement, let first = lines[user]!.waiting.first,
                taken + self.entries(first.write) <= self.entriesPerStatement
            {
                taken += self.entries(first.write)
                followers.append(lines[user]!.waiting.removeFirst())
            }
            return (leader, followers)
        }
        if let next {
            next.leader.continuation.resume(returning: .lead(followers: next.followers))
        }
    }
}
