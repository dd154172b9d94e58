import ContentStateAPI
import ContentStateService
import Foundation
import Postgres
import Synchronization
import Testing

/// `content.user.merge`: a guest's state merged into another user (DESIGN.md section 9.1).
@Suite struct GuestMergeTests {
    /// One row of `content.item_states` to seed: times in seconds after a fixed instant.
    struct Seed {
        var item: String
        var favorited: Int? = nil
        var nickname: String? = nil
        var position: Int? = nil
        var read: Int? = nil
        var unliked: Int? = nil
    }

    static let epoch = 1_795_000_000.0

    /// Writes `rows` for `user` behind the service's back, with versions 1...n and a matching
    /// `user_versions` row, so that each rule can be set up with the times it needs.
    func seed(_ service: TestService, _ user: UUID, _ rows: [Seed]) async throws {
        func time(_ seconds: Int?) -> PostgresValue {
            seconds.map { .timestamp(Date(timeIntervalSince1970: Self.epoch + Double($0))) } ?? .null
        }
        for (index, row) in rows.enumerated() {
            try await service.postgres.execute(
                """
                INSERT INTO content.item_states
                    (user_id, item_id, favorited_at, nickname, position, read_at, unliked_at, updated_at, version)
                VALUES ($1, $2, $3, $4, $5, $6, $7, now(), $8)
                """,
                [
                    .uuid(user), .text(row.item), time(row.favorited), PostgresValue(row.nickname), PostgresValue(row.position),
                    time(row.read), time(row.unliked), .int(index + 1),
                ])
        }
        try await service.postgres.execute(
            """
            INSERT INTO content.user_versions (user_id, version, favorite_count)
            SELECT $1, $2, count(*) FROM content.item_states WHERE user_id = $1 AND favorited_at IS NOT NULL
            """, [.uuid(user), .int(rows.count)])
    }

    func changes(_ service: TestService, _ user: UUID, since cursor: String? = nil) async throws -> (changes: [Change], cursor: String) {
        var all: [Change] = []
        var cursor = cursor
        while true {
            let page: ChangesPage = try await service.call(ContentState.stateChanges, ChangesParams(userID: user, since: cursor, limit: 200))
            all += page.changes
            cursor = page.nextCursor
            if !page.hasMore { return (all, page.nextCursor) }
        }
    }

    func ms(_ seconds: Int) -> Timestamp { Timestamp(milliseconds: Int64(Self.epoch + Double(seconds)) * 1000) }

    @Test func mergeTakesTheUnionWithEachRuleAndFeedsTheTargetsDevices() async throws {
        let service = try await TestService.standard()
        let (guest, target) = (UUID(), UUID())
        try await self.seed(service, target, [
            Seed(item: "both-favorited", favorited: 20, nickname: "mine"),
            Seed(item: "target-only", read: 10),
            Seed(item: "read-later-by-guest", read: 10),
            Seed(item: "read-later-by-target", read: 30),
            Seed(item: "unliked-by-both", unliked: 10),
            Seed(item: "guest-tombstone", favorited: 5),
            Seed(item: "favorited-first-by-target", favorited: 1),
        ])
        try await self.seed(service, guest, [
            Seed(item: "both-favorited", favorited: 10, nickname: "theirs", position: 5),
            Seed(item: "guest-only", favorited: 10, nickname: "g", read: 30, unliked: 20),
            Seed(item: "read-later-by-guest", read: 30),
            Seed(item: "read-later-by-target", read: 10),
            Seed(item: "unliked-by-both", unliked: 20),
            Seed(item: "guest-tombstone"),
            Seed(item: "favorited-first-by-target", favorited: 2),
        ])
        let before = try await self.changes(service, target)

        let merged: UserMergeResult = try await service.call(ContentState.userMerge, UserMergeParams(userID: guest, intoUserID: target))
        #expect(merged.intoUserID == target)
        #expect(merged.changed == UserContentCounts(favorites: 2, read: 2, unlikes: 2))

        let after = try await self.changes(service, target, since: before.cursor)
        let changed = Dictionary(uniqueKeysWithValues: after.changes.map { ($0.itemID, $0) })
        #expect(Set(changed.keys) == ["both-favorited", "guest-only", "read-later-by-guest", "unliked-by-both"])
        // The earlier favorited_at; the target's nickname, the guest's position where the target has none.
        #expect(changed["both-favorited"]?.favoritedAt == self.ms(10))
        #expect(changed["both-favorited"]?.nickname == "mine")
        #expect(changed["both-favorited"]?.position == 5)
        #expect(changed["guest-only"]?.nickname == "g")
        #expect(changed["guest-only"]?.readAt == self.ms(30))
        #expect(changed["guest-only"]?.unlikedAt == self.ms(20))
        // The later read_at and unliked_at.
        #expect(changed["read-later-by-guest"]?.readAt == self.ms(30))
        #expect(changed["unliked-by-both"]?.unlikedAt == self.ms(20))
        let all = Dictionary(uniqueKeysWithValues: try await self.changes(service, target).changes.map { ($0.itemID, $0) })
        #expect(all["read-later-by-target"]?.readAt == self.ms(30))
        #expect(all["guest-tombstone"]?.favoritedAt == self.ms(5))
        #expect(all["favorited-first-by-target"]?.favoritedAt == self.ms(1))

        // Versions stay unique and gap-free; the favorites count follows.
        let rows = try await service.postgres.query(
            """
            SELECT v.version, v.favorite_count,
                   (SELECT max(version) FROM content.item_states WHERE user_id = $1) AS top,
                   (SELECT count(*) FROM content.item_states WHERE user_id = $1) AS items,
                   (SELECT count(*) FROM content.item_states WHERE user_id = $1 AND favorited_at IS NOT NULL) AS favorites,
                   (SELECT count(*) FROM content.item_states WHERE user_id = $2)
                   + (SELECT count(*) FROM content.user_versions WHERE user_id = $2) AS guest_rows
            FROM content.user_versions v WHERE v.user_id = $1
            """, [.uuid(target), .uuid(guest)])
        let row = try #require(rows.first)
        #expect(try row.decode("version", as: Int.self) == 11)
        #expect(try row.decode("top", as: Int.self) == 11)
        #expect(try row.decode("favorite_count", as: Int.self) == row.decode("favorites", as: Int.self))
        #expect(try row.decode("guest_rows", as: Int.self) == 0)

        // A repeat answers the recorded merge and changes nothing; another target gets the first.
        let again: UserMergeResult = try await service.call(ContentState.userMerge, UserMergeParams(userID: guest, intoUserID: target))
        #expect(again == merged)
        #expect(try await self.changes(service, target, since: before.cursor).changes.count == 4)
        let elsewhere: UserMergeResult = try await service.call(ContentState.userMerge, UserMergeParams(userID: guest, intoUserID: UUID()))
        #expect(elsewhere.intoUserID == target)
        #expect(await service.errorCode(ContentState.userMerge, UserMergeParams(userID: target, intoUserID: target)) == "bad_request")

        // Deleting the target removes the record that names it.
        let _: UserDeletionResult = try await service.call(ContentState.userDelete, UserParams(userID: target))
        let records = try await service.postgres.query(
            "SELECT count(*) AS n FROM content.guest_merges WHERE target_user_id = $1", [.uuid(target)])
        #expect(try records[0].decode("n", as: Int.self) == 0)
    }

    @Test func aGuestWithTenThousandItemsMergesInOneStatement() async throws {
        let service = try await TestService.standard()
        let (guest, target) = (UUID(), UUID())
        try await service.postgres.execute(
            """
            INSERT INTO content.item_states (user_id, item_id, favorited_at, read_at, updated_at, version)
            SELECT $1, 'item-' || n, now(), CASE WHEN n % 2 = 0 THEN now() END, now(), n FROM generate_series(1, 10000) AS n
            """, [.uuid(guest)])
        try await service.postgres.execute(
            "INSERT INTO content.user_versions (user_id, version, favorite_count) VALUES ($1, 10000, 10000)", [.uuid(guest)])
        let _: Favorite = try await service.call(ContentState.favoritesPut, FavoritePutParams(userID: target, itemID: "item-1"))

        let clock = ContinuousClock()
        let start = clock.now
        let merged: UserMergeResult = try await service.call(ContentState.userMerge, UserMergeParams(userID: guest, intoUserID: target))
        let took = clock.now - start
        // item-1 was the target's, favorited later than the guest's: its earlier time counts as a change.
        #expect(merged.changed == UserContentCounts(favorites: 10_000, read: 5_000, unlikes: 0))
        #expect(took < .seconds(20), "took \(took)")
        let counts: UserContentCounts = try await service.call(ContentState.userCounts, UserParams(userID: target))
        #expect(counts == UserContentCounts(favorites: 10_000, read: 5_000, unlikes: 0))
        #expect(try await self.changes(service, target).changes.count == 10_000)
    }

    @Test func aMergeRacingTheTargetsOtherDeviceLosesNothingAndThePollSkipsNothing() async throws {
        let service = try await TestService.standard()
        let (guest, target) = (UUID(), UUID())
        try await service.postgres.execute(
            """
            INSERT INTO content.item_states (user_id, item_id, read_at, updated_at, version)
            SELECT $1, 'guest-' || n, now(), now(), n FROM generate_series(1, 2000) AS n
            """, [.uuid(guest)])
        try await service.postgres.execute(
            "INSERT INTO content.user_versions (user_id, version) VALUES ($1, 2000)", [.uuid(guest)])
        let device = (0..<200).map { "device-\($0)" }
        let writesDone = DoneFlag()
        let seen = try await withThrowingTaskGroup(of: Set<String>?.self) { group in
            group.addTask {
                try await withThrowingTaskGroup(of: Void.self) { writers in
                    writers.addTask {
                        for item in device {
                            let _: Favorite = try await service.call(ContentState.favoritesPut, FavoritePutParams(userID: target, itemID: item))
                        }
                    }
                    writers.addTask {
                        let _: UserMergeResult = try await service.call(
                            ContentState.userMerge, UserMergeParams(userID: guest, intoUserID: target))
                    }
                    try await writers.waitForAll()
                }
                writesDone.set()
                return nil
            }
            // The target's other device polls the feed all along, from its cursor, and stops at
            // the first empty page after every write returned: what it skipped it never sees.
            group.addTask {
                var seen: Set<String> = []
                var cursor: String?
                while true {
                    let done = writesDone.isSet
                    let page: ChangesPage = try await service.call(
                        ContentState.stateChanges, ChangesParams(userID: target, since: cursor, limit: 200))
                    seen.formUnion(page.changes.map(\.itemID))
                    cursor = page.nextCursor
                    if page.changes.isEmpty {
                        if done { return seen }
                        try await Task.sleep(for: .milliseconds(2))
                    }
                }
            }
            var seen: Set<String> = []
            for try await result in group { if let result { seen = result } }
            return seen
        }
        #expect(seen == Set(device + (1...2000).map { "guest-\($0)" }))
        let counts: UserContentCounts = try await service.call(ContentState.userCounts, UserParams(userID: target))
        #expect(counts == UserContentCounts(favorites: 200, read: 2000, unlikes: 0))
    }
}

/// Whether the writers of a race returned, read by the poller.
final class DoneFlag: Sendable {
    private let state = Mutex(false)
    func set() { self.state.withLock { $0 = true } }
    var isSet: Bool { self.state.withLock { $0 } }
}
