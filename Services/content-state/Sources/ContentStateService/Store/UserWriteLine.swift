import Foundation
import Synchronization

/// The writes of each user that this replica runs: at most four at once, the others waiting
/// here in the order they came.
///
/// `content.write_items` runs a user's writers one at a time, with a row lock in Postgres, and
/// that stays the guarantee (several replicas, an account's deletion). Without this line every
/// writer of a busy user waited for that lock on a pool connection of its own, in a backend
/// that sleeps and is woken by a signal: one user writing from many devices or tabs took every
/// pool connection (8 by default), and other users' reads and writes queued behind it. A few
/// at once keep the next statements waiting in Postgres, so one starts the moment the previous
/// one commits; the rest wait in the service and hold no connection. Measured with 64
/// concurrent writers of one user (docs/benchmarks.md): one at a time left Postgres idle for a
/// round trip between writes and served a third fewer, two served 7 % fewer, four serve as many
/// as before with a sixth less Postgres CPU per write (fewer backends to wake).
///
/// A waiting write is not given up when its caller is cancelled: it runs when its turn comes
/// (a write is one statement).
final class UserWriteLine: Sendable {
    /// How many writes of one user run at once, by default.
    static let writesAtOnce = 4

    /// How many writes of one user run at once in this line.
    let writesAtOnce: Int

    init(writesAtOnce: Int = UserWriteLine.writesAtOnce) {
        precondition(writesAtOnce > 0)
        self.writesAtOnce = writesAtOnce
    }

    private struct Line {
        var running = 0
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    /// Per user with a write running.
    private let lines = Mutex<[UUID: Line]>([:])

    /// Runs `write` once fewer than `writesAtOnce` earlier writes of `user` are running here
    /// (the first waiting goes first).
    func run<Result>(for user: UUID, _ write: () async throws -> Result) async throws -> Result {
        await self.enter(user)
        do {
            let result = try await write()
            self.leave(user)
            return result
        } catch {
            self.leave(user)
            throw error
        }
    }

    /// The users with a write running here (for tests).
    var busyUsers: Int { self.lines.withLock { $0.count } }

    /// The writes of `user` running and waiting (for tests).
    func writes(of user: UUID) -> (running: Int, waiting: Int) {
        self.lines.withLock { lines in (lines[user]?.running ?? 0, lines[user]?.waiting.count ?? 0) }
    }

    /// Takes a place if one is free; false if the caller has to wait.
    private func tryEnter(_ user: UUID, _ lines: inout [UUID: Line]) -> Bool {
        let running = lines[user]?.running ?? 0
        guard running < self.writesAtOnce else { return false }
        lines[user, default: Line()].running = running + 1
        return true
    }

    private func enter(_ user: UUID) async {
        if self.lines.withLock({ self.tryEnter(user, &$0) }) { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let entered = self.lines.withLock { lines in
                if self.tryEnter(user, &lines) { return true }
                lines[user]!.waiting.append(continuation)
                return false
            }
            if entered { continuation.resume() }
        }
    }

    /// Hands the place on to the first write waiting, or frees it.
    private func leave(_ user: UUID) {
        let next = self.lines.withLock { lines -> CheckedContinuation<Void, Never>? in
            guard let line = lines[user] else { return nil }
            if !line.waiting.isEmpty {
                // In place: a copy of the line would copy its queue.
                return lines[user]!.waiting.removeFirst()
            }
            if line.running > 1 {
                lines[user]!.running -= 1
            } else {
                lines[user] = nil
            }
            return nil
        }
        next?.resume()
    }
}
