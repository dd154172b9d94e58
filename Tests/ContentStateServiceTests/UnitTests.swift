import Foundation
import ServiceKit
import Testing

@testable import ContentStateService

/// The pure parts: times, cursors, transitions, configuration.
@Suite struct UnitTests {
    @Test func timestampsFormatAsRFC3339UTCWithMillisecondsAndParseBack() {
        let samples: [(Int64, String)] = [
            (0, "1970-01-01T00:00:00.000Z"),
            (1_795_317_839_123, "2026-11-22T03:23:59.123Z"),
            (951_782_400_001, "2000-02-29T00:00:00.001Z"),
            (-1, "1969-12-31T23:59:59.999Z"),
        ]
        for (ms, text) in samples {
            #expect(Timestamp(milliseconds: ms).rfc3339 == text)
            #expect(Timestamp(rfc3339: text)?.milliseconds == ms)
        }
        #expect(Timestamp(rfc3339: "2026-11-22T03:23:59Z")?.milliseconds == 1_795_317_839_000)
        #expect(Timestamp(rfc3339: "2026-11-22T03:23:59.123456Z")?.milliseconds == 1_795_317_839_123)
        for bad in ["", "2026-11-22", "2026-11-22T03:23:59", "2026-13-01T00:00:00Z", "2026-11-22T03:23:59.Z", "2026-11-22 03:23:59Z"] {
            #expect(Timestamp(rfc3339: bad) == nil, "\(bad)")
        }
    }

    @Test func cursorsRoundTripAndOnlyOpenTheirOwnList() throws {
        let cursor = PageCursor(kind: .favoritesRecent, key: 1_795_317_839_123, itemID: "a/b+c\"d")
        let text = cursor.encoded
        #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"), "base64url without padding")
        #expect(try PageCursor(decoding: text, as: .favoritesRecent) == cursor)
        #expect(throws: ContentStateError.invalidCursor) { try PageCursor(decoding: text, as: .favoritesPosition) }
        let changes = PageCursor(kind: .changes, key: 42)
        #expect(try PageCursor(decoding: changes.encoded, as: .changes) == changes)
        #expect(throws: ContentStateError.invalidCursor) { try PageCursor(decoding: changes.encoded, as: .read) }
    }

    @Test func transitionsThatChangeNothingLeaveTheStateEqual() {
        let now = Timestamp(milliseconds: 1000)
        let later = Timestamp(milliseconds: 2000)
        var state = ItemState.empty
        state.favorite(nickname: .set("n"), position: .set(1), at: now)
        let favorited = state
        state.favorite(nickname: .keep, position: .keep, at: later)
        #expect(state == favorited)
        state.markRead(at: now)
        let read = state
        state.markRead(at: later)
        #expect(state == read)
        var empty = ItemState.empty
        empty.unfavorite()
        empty.unmarkRead()
        empty.removeUnlike()
        #expect(empty == .empty)
        state.toggleFavorite(at: later)
        #expect(!state.isFavorited && state.nickname == nil && state.position == nil && state.readAt == now)
    }

    @Test func itemIDBatchesDropRepeatsAndEnforceTheMaximum() throws {
        #expect(try ItemID.batch(["a", "b", "a"], maximum: 3).map(\.value) == ["a", "b"])
        #expect(throws: ContentStateError.batchTooLarge(maximum: 2)) { try ItemID.batch(["a", "b", "c"], maximum: 2) }
    }

    @Test func configurationDefaultsAndBadValuesNameTheVariable() throws {
        let defaults = try ContentStateConfiguration(EnvironmentReader([:]))
        #expect(defaults.maxFavoritesPerUser == 10_000 && defaults.maxBatch == 500)
        let custom = try ContentStateConfiguration(EnvironmentReader(["MAX_FAVORITES_PER_USER": "25", "MAX_BATCH": "100"]))
        #expect(custom.maxFavoritesPerUser == 25 && custom.maxBatch == 100)
        for (name, value) in [("MAX_FAVORITES_PER_USER", "0"), ("MAX_FAVORITES_PER_USER", "many"), ("MAX_BATCH", "0"), ("MAX_BATCH", "5000")] {
            #expect {
                try ContentStateConfiguration(EnvironmentReader([name: value]))
            } throws: { error in
                (error as? ConfigurationError)?.variable == name
            }
        }
    }
}
