// json-coders-bench: encodes and decodes the RPC layer's real payloads N times, with the
// compact coders (RPCJSON: compact, Foundation for what they leave) or with Foundation's
// alone, for instruction counts under `valgrind --tool=callgrind`, which do not depend on
// the machine's load. scripts/bench-json-coders runs it and prints the table.
//
//   json-coders-bench compact|foundation PAYLOAD ITERATIONS
import ContentStateAPI
import Foundation
import ServiceProtocol
import TokensAPI

/// One payload: encode it, decode the bytes back.
struct Payload {
    var name: String
    var roundTrip: (_ compact: Bool) throws -> Int
}

func roundTrip<T: Codable>(_ value: T) -> (Bool) throws -> Int {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let decoder = JSONDecoder()
    return { compact in
        if compact {
            let bytes = try RPCJSON.encode(value)
            _ = try RPCJSON.decode(T.self, from: bytes)
            return bytes.count
        }
        let bytes = try encoder.encode(value)
        _ = try decoder.decode(T.self, from: bytes)
        return bytes.count
    }
}

let user = UUID(uuidString: "6f1c3b8e-2d4a-4c1e-9f7a-0b5d2e8c4a13")!
let ids = (0..<50).map { "article/\($0 * 7919)" }
let payloads: [Payload] = [
    Payload(name: "state-query-params", roundTrip: roundTrip(StateQueryParams(userID: user, itemIDs: ids))),
    Payload(
        name: "state-query-result",
        roundTrip: roundTrip(
            StateQueryResult(items: Dictionary(uniqueKeysWithValues: ids.enumerated().map { index, id in
                (id, ItemFlags(favorited: index % 2 == 0, read: index % 3 == 0, unliked: index % 7 == 0))
            })))),
    Payload(
        name: "favorites-page",
        roundTrip: roundTrip(
            FavoritesPage(
                items: ids.enumerated().map { index, id in
                    Favorite(
                        itemID: id, nickname: index % 4 == 0 ? "later \(index)" : nil, position: index % 3 == 0 ? Int64(index) : nil,
                        favoritedAt: Timestamp(milliseconds: 1_764_000_000_000 + Int64(index)))
                },
                nextCursor: "eyJrIjoiMjAyNi0xMS0yNVQwNDozMjowNC4xMjNaIiwiaSI6ImFydGljbGUvOTkifQ"))),
    Payload(name: "issue-params", roundTrip: roundTrip(IssueParams(userID: user, isAdmin: false, deviceName: "iPhone 17"))),
    Payload(
        name: "token-pair",
        roundTrip: roundTrip(
            TokenPair(
                accessToken: String(repeating: "eyJhbGciOiJSUzI1NiIsImtpZCI6Ik5aYkxzWGg4dURDY2QtNk1Od1hGNFc", count: 8),
                tokenType: "Bearer", expiresIn: 900, expiresAt: "2026-11-25T04:47:04.000Z", refreshToken: "3q2-7wAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
                refreshExpiresAt: "2026-12-25T04:32:04.000Z", sessionID: user, userID: user, isAdmin: false))),
]

let arguments = CommandLine.arguments
guard arguments.count == 4, ["compact", "foundation"].contains(arguments[1]), let iterations = Int(arguments[3]),
    let payload = payloads.first(where: { $0.name == arguments[2] })
else {
    FileHandle.standardError.write(Data("usage: json-coders-bench compact|foundation \(payloads.map(\.name).joined(separator: "|")) ITERATIONS\n".utf8))
    exit(2)
}
let compact = arguments[1] == "compact"
var total = try payload.roundTrip(compact)  // once before counting: lazily created state
for _ in 0..<iterations { total &+= try payload.roundTrip(compact) }
print("\(payload.name) \(arguments[1]) bytes=\(total)")
