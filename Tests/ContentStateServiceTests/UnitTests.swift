import ContentStateAPI
import Foundation
import NIOCore
import NIOFoundationEssentialsCompat
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

    /// Cursors read the same as those of earlier versions, which a sorted-keys `JSONEncoder`
    /// and Foundation's base64 wrote.
    @Test(arguments: [
        PageCursor(kind: .favoritesRecent, key: 1_795_317_839_123, itemID: "a/b+c\"d"),
        PageCursor(kind: .favoritesPosition, key: -3, itemID: "é ☃ 😀 \\ \n"),
        PageCursor(kind: .changes, key: 42),
    ])
    func cursorsAreTheStringsEarlierVersionsWrote(_ cursor: PageCursor) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let former = try encoder.encode(cursor).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        #expect(cursor.encoded == former)
        #expect(try PageCursor(decoding: former, as: cursor.kind) == cursor)
    }

    /// The byte scan finds exactly Unicode's control characters (Cc: U+0000–U+001F, U+007F,
    /// U+0080–U+009F): every scalar up to U+0FFF and a few beyond, alone and between others.
    @Test func controlCharactersAreFoundOnTheUTF8BytesExactlyAsUnicodeDefinesThem() {
        let scalars = (0...0xFFF).compactMap(Unicode.Scalar.init) + ["\u{FEFF}", "\u{10FFFF}", "😀", "\u{2028}"]
        for scalar in scalars {
            let isControl = scalar.properties.generalCategory == .control
            for text in [String(scalar), "a\(scalar)b", "\u{C2}\(scalar)", "é\(scalar)\u{A0}"] {
                let expected = text.unicodeScalars.contains { $0.properties.generalCategory == .control }
                #expect(ItemID.containsControlCharacter(text) == expected, "U+\(String(scalar.value, radix: 16)) in \(text.debugDescription)")
            }
            #expect(isControl == ItemID.containsControlCharacter(String(scalar)))
        }
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

/// The results written by hand read back, through the types' own decoders, as the values they
/// were written from, awkward strings included.
@Suite struct RawResultTests {
    @Test func stateQueryResultsReadBackAsWritten() throws {
        let ids = [#"quote " backslash \ "#, "naïve ✓ 🦊", "/slash", "plain"]
        var table = try ItemFlagsTable(validating: ids + [ids[1], ids[0]], maximum: 6)
        #expect(table.ids == ids)
        var expected: [String: ItemFlags] = [:]
        for (index, id) in ids.enumerated() {
            let flags = ItemFlags(favorited: index % 2 == 0, read: index % 3 == 0, unliked: index == 2)
            if index < 3 { table.set(flags, of: id) }
            expected[id] = index < 3 ? flags : ItemFlags(favorited: false, read: false, unliked: false)
        }
        table.set(ItemFlags(favorited: true, read: true, unliked: true), of: "not asked")
        for (table, expected) in [(table, expected), (try ItemFlagsTable(validating: [], maximum: 6), [:])] {
            let written = try JSONDecoder().decode(StateQueryResult.self, from: Data(buffer: table.rawJSON.bytes))
            #expect(written == StateQueryResult(items: expected))
        }
    }

    @Test func aStateQuerysIdsAreCheckedLikeAnyOtherBatch() {
        #expect(throws: ContentStateError.batchTooLarge(maximum: 2)) { try ItemFlagsTable(validating: ["a", "b", "c"], maximum: 2) }
        #expect(throws: ContentStateError.self) { try ItemFlagsTable(validating: ["a", "tab\t"], maximum: 2) }
        #expect(throws: ContentStateError.self) { try ItemFlagsTable(validating: [""], maximum: 2) }
    }
}

@Suite struct PostgresTextArrayTests {
    @Test func idsAreQuotedWithQuotesAndBackslashesEscaped() throws {
        let ids = try ["plain", #"q"uote"#, #"back\slash"#, "naïve ✓", "{braces},comma"].map { try ItemID(validating: $0) }
        #expect(postgresTextArray(ids) == #"{"plain","q\"uote","back\\slash","naïve ✓","{braces},comma"}"#)
        #expect(postgresTextArray([]) == "{}")
    }

    @Test func nilIsNull() {
        #expect(postgresArray(["t", nil, "NULL", "7"]) == #"{"t",NULL,"NULL","7"}"#)
    }
}
