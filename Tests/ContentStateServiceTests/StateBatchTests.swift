import ContentStateAPI
@testable import ContentStateService
import Foundation
import Postgres
import TestSupport
import Testing

/// State queries that wait behind each other in the state line run as one statement over all
/// their users (`ContentStore.selectFlags(probes:)`), and each caller gets exactly the flags it
/// would get alone.
@Suite struct StateBatchTests {
    /// Three users: one with favorites, read and unliked items and ids that need quoting in an
    /// array literal; one with a single favorite; one with nothing.
    private func users(_ service: TestService) async throws -> (full: UUID, single: UUID, empty: UUID, ids: [String]) {
        let (full, single, empty) = (UUID(), UUID(), UUID())
        let ids = ["plain", #"q"uote"#, #"back\slash"#, "{braces},comma", "naïve ✓", "sp ace", "z-last"]
        for (index, id) in ids.enumerated() where index != 5 {
            if index.isMultiple(of: 2) {
                let _: Favorite = try await service.call(ContentState.favoritesPut, FavoritePutParams(userID: full, itemID: id))
            }
            if index.isMultiple(of: 3) {
                let _: ReadMark = try await service.call(ContentState.readMark, ItemParams(userID: full, itemID: id))
            }
            if index == 1 {
                let _: Unlike = try await service.call(ContentState.unlikesPut, ItemParams(userID: full, itemID: id))
            }
        }
        let _: Favorite = try await service.call(ContentState.favoritesPut, FavoritePutParams(userID: single, itemID: "plain"))
        return (full, single, empty, ids)
    }

    private struct Answer: Equatable, Sendable {
        var ids: [String]
        var flags: [ItemFlags]
    }

    private func flags(_ store: ContentStore, _ user: UUID, _ ids: [String]) async throws -> Answer {
        let table = try await store.flags(user: user, of: try ItemFlagsTable(validating: ids, maximum: 500))
        return Answer(ids: table.ids, flags: table.flags)
    }

    @Test func stateQueriesOfDifferentUsersThatWaitedTogetherEachGetTheirOwnFlags() async throws {
        let service = try await TestService.ownPool()
        let store = ContentStore(postgres: service.postgres, configuration: ContentStateConfiguration())
        let (full, single, empty, ids) = try await users(service)
        let queries: [@Sendable () async throws -> Answer] = [
            { try await flags(store, full, ids + ["never"]) },
            { try await flags(store, single, ["plain", "z-last"]) },
            { try await flags(store, empty, ids) },
            { try await flags(store, full, ["z-last", "plain", "plain"]) },
            { try await flags(store, single, ["plain"]) },
        ]
        let together = try await store.stateLine.queued(
            behind: .all, holder: StateProbe(user: UUID(), ids: ["held"]), answer: [], queries
        ).map { try $0.get() }
        for (query, answer) in zip(queries, together) {
            #expect(try await query() == answer, "the same flags as the query alone")
        }
        let none = ItemFlags(favorited: false, read: false, unliked: false)
        #expect(together[0].ids == ids + ["never"])
        #expect(together[0].flags == [
            ItemFlags(favorited: true, read: true, unliked: false), ItemFlags(favorited: false, read: false, unliked: true),
            ItemFlags(favorited: true, read: false, unliked: false), ItemFlags(favorited: false, read: true, unliked: false),
            ItemFlags(favorited: true, read: false, unliked: false), none,
            ItemFlags(favorited: true, read: true, unliked: false), none,
        ])
        #expect(together[1].flags == [ItemFlags(favorited: true, read: false, unliked: false), none])
        #expect(together[2].flags == Array(repeating: none, count: ids.count), "a user with no rows gets none of another's")
        #expect(together[3].ids == ["z-last", "plain"] && together[3].flags[0].favorited && together[3].flags[1].read)
        #expect(together[4].flags == [ItemFlags(favorited: true, read: false, unliked: false)])
    }

    /// A probe that cannot run (an id with NUL, which the client will not send and `ItemID`
    /// keeps from callers) fails alone: the probes it waited with run one by one and get their
    /// rows.
    @Test func aProbeTheServerRefusesFailsAloneAndTheOthersGetTheirRows() async throws {
        let service = try await TestService.ownPool()
        let store = ContentStore(postgres: service.postgres, configuration: ContentStateConfiguration())
        let (full, single, _, _) = try await users(service)
        let probe: @Sendable (UUID, [String]) async throws -> [String] = { user, ids in
            try await store.stateLine.run(StateProbe(user: user, ids: ids), for: .all) { try await store.run($0) }
                .map { try $0.decode(0, as: String.self) }
        }
        let probes: [@Sendable () async throws -> [String]] = [
            { try await probe(full, ["plain", "sp ace", "z-last"]) },
            { try await probe(single, ["pla\u{0}in"]) },
            { try await probe(single, ["plain"]) },
        ]
        let results = try await store.stateLine.queued(behind: .all, holder: StateProbe(user: UUID(), ids: ["held"]), answer: [], probes)
        #expect(try Set(results[0].get()) == ["plain", "z-last"])
        #expect(try results[2].get() == ["plain"])
        #expect(throws: PostgresError.self) { try results[1].get() }
    }

    @Test func theFoldedStatementNumbersEachProbesParameters() {
        let two = ContentStore.selectFlags(probes: 2)
        #expect(two.components(separatedBy: "UNION ALL").count == 2)
        #expect(two.contains("s.user_id = $3 AND s.item_id = ANY($4::text[])") && two.contains("2 AS probe_index"))
        // Past the line's own limit the statement is written on the spot, the same way.
        let many = ContentStore.selectFlags(probes: stateLineCallsPerStatement + 1)
        #expect(many.components(separatedBy: "UNION ALL").count == stateLineCallsPerStatement + 1)
        #expect(many.contains("$\(2 * stateLineCallsPerStatement + 2)::text[]"))
        #expect(ContentStore.selectFlags(probes: stateLineCallsPerStatement) == ContentStore.selectFlags(probes: stateLineCallsPerStatement))
    }
}
