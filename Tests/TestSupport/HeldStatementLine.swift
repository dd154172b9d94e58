import Foundation
import Postgres
import Testing

extension StatementLine {
    /// Runs `work`, each item started once the one before waits in this line behind calls
    /// (`holder`, answered with `answer`) that hold every place of `key`, then lets the holders
    /// go: the work that waited runs together as the next statement. Returns each item's result,
    /// in order, once all have ended and the line is empty.
    public func queued<T: Sendable>(
        behind key: Key, holder: Call, answer: Outcome, _ work: [@Sendable () async throws -> T]
    ) async throws -> [Result<T, any Error>] {
        #expect(work.count > 1 && work.count <= self.callsPerStatement)
        let (gate, opened) = AsyncStream<Void>.makeStream(bufferingPolicy: .unbounded)
        var holders: [Task<Outcome, any Error>] = []
        for index in 0..<self.statementsAtOnce {
            holders.append(Task {
                try await self.run(holder, for: key) { calls in
                    for await _ in gate { break }
                    return calls.map { _ in .success(answer) }
                }
            })
            while self.calls(of: key).running < index + 1 { await Task.yield() }
        }
        var tasks: [Task<T, any Error>] = []
        for (index, item) in work.enumerated() {
            tasks.append(Task { try await item() })
            while self.calls(of: key).waiting < index + 1 { await Task.yield() }
        }
        #expect(self.calls(of: key) == (self.statementsAtOnce, work.count))
        for _ in holders { opened.yield() }
        for holder in holders { _ = try await holder.value }
        var results: [Result<T, any Error>] = []
        for task in tasks { results.append(await task.result) }
        #expect(self.busyKeys == 0)
        return results
    }
}
