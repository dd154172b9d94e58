import ContentStateAPI
@testable import ContentStateService
import Foundation
import Postgres
import Synchronization
import Testing

/// Each user's writes run a few at a time in the service (`UserWriteLine`), so a busy user's
/// writers wait there instead of each on a pool connection in Postgres.
@Suite struct UserWriteLineTests {
    @Test(arguments: [1, UserWriteLine.writesAtOnce])
    func aUsersWritesRunAFewAtATimeAndTheRestInTurn(atOnce: Int) async throws {
        let line = UserWriteLine(writesAtOnce: atOnce)
        let user = UUID()
        let log = WriteLog()
        // The first writes hold their places until all the others wait behind them.
        let (gate, opened) = AsyncStream<Void>.makeStream(bufferingPolicy: .unbounded)
        var holders: [Task<Void, any Error>] = []
        for index in 0..<atOnce {
            holders.append(Task {
                try await line.run(for: user) {
                    log.withLock { $0.running += 1; $0.most = max($0.most, $0.running); $0.order.append(index) }
                    for await _ in gate { break }
                    log.withLock { $0.running -= 1 }
                }
            })
            while line.writes(of: user).running < index + 1 { await Task.yield() }
        }
        var others: [Task<Void, any Error>] = []
        for index in atOnce..<(atOnce + 20) {
            others.append(Task {
                try await line.run(for: user) {
                    log.withLock { $0.running += 1; $0.most = max($0.most, $0.running); $0.order.append(index) }
                    try await Task.sleep(for: .milliseconds(1))
                    log.withLock { $0.running -= 1 }
                }
            })
            // Each waits before the next comes, so their order is known.
            while line.writes(of: user).waiting < index - atOnce + 1 { await Task.yield() }
        }
        #expect(line.writes(of: user) == (atOnce, 20))
        for _ in 0..<atOnce { opened.yield() }
        for task in holders + others { try await task.value }
        let final = log.withLock { $0 }
        #expect(final.most <= atOnce, "never more than \(atOnce) writes of one user at once")
        #expect(final.order.count == atOnce + 20)
        if atOnce == 1 {
            // One at a time, the order they ran in is the order they came in.
            #expect(final.order == Array(0..<21))
        }
        #expect(line.busyUsers == 0, "the line is empty once every write ended")
    }

    /// What the writes of the first test saw.
    final class WriteLog: Sendable {
        private let state = Mutex<(running: Int, most: Int, order: [Int])>((0, 0, []))
        func withLock<T>(_ body: (inout (running: Int, most: Int, order: [Int])) -> T) -> T { state.withLock { body(&$0) } }
    }

    @Test func otherUsersWritesDoNotWait() async throws {
        let line = UserWriteLine()
        let (gate, opened) = AsyncStream<Void>.makeStream(bufferingPolicy: .unbounded)
        let busyUser = UUID()
        var busy: [Task<Void, any Error>] = []
        for _ in 0..<UserWriteLine.writesAtOnce {
            busy.append(Task { try await line.run(for: busyUser) { for await _ in gate { break } } })
        }
        while line.writes(of: busyUser).running < UserWriteLine.writesAtOnce { await Task.yield() }
        // Would wait forever if the line were one for every user.
        let ran = try await line.run(for: UUID()) { true }
        #expect(ran)
        for _ in busy { opened.yield() }
        for task in busy { try await task.value }
    }

    @Test func aFailedWriteHandsTheTurnOn() async throws {
        struct Refused: Error {}
        let line = UserWriteLine()
        let user = UUID()
        await #expect(throws: Refused.self) {
            try await line.run(for: user) { throw Refused() }
        }
        #expect(line.busyUsers == 0)
        #expect(try await line.run(for: user) { 7 } == 7)
    }

    @Test func aBusyUsersWritersHoldAFewConnectionsBetweenThem() async throws {
        let service = try await TestService.ownPool()
        let user = UUID()
        let _: Favorite = try await service.call(ContentState.favoritesPut, FavoritePutParams(userID: user, itemID: "first"))
        let writers = try await service.postgres.withTransaction { connection in
            // Hold the user's lock the way a writer does (another replica, say).
            try await connection.holdWriteLock(of: user)
            var writers: [Task<Void, any Error>] = []
            for index in 0..<12 {
                writers.append(Task {
                    let _: Favorite = try await service.call(
                        ContentState.favoritesPut, FavoritePutParams(userID: user, itemID: "item-\(index)"))
                })
            }
            try await connection.untilABackendWaits()
            // Time for the others to reach the service (each would take a connection and wait on
            // the lock in Postgres: 7 at once with the pool's 8).
            try await Task.sleep(for: .milliseconds(500))
            let waiting = try await connection.backendsWaitingForThisTransaction()
            try #require(waiting <= UserWriteLine.writesAtOnce, "a few of the user's writers wait in Postgres; the others wait in the service")
            // The pool still serves everyone else.
            let other: FavoritesPage = try await service.call(ContentState.favoritesList, FavoritesListParams(userID: UUID()))
            #expect(other.items.isEmpty)
            return writers
        }
        for writer in writers { try await writer.value }
        let rows = try await service.postgres.query(
            "SELECT version FROM content.item_states WHERE user_id = $1 ORDER BY version", [.uuid(user)])
        #expect(try rows.map { try $0.decode("version", as: Int.self) } == Array(1...13))
    }
}
