import TokensAPI
import Foundation
import Logging
import NIOCore
import Redis
import ServiceKit
import TestSupport
import Testing

@testable import Gateway

/// The gateway's reading of the revocation copy (docs/revocation.md) against a real Redis, on a
/// database of its own (15) so that the marker can be removed without disturbing anything else.
@Suite("Revocation checks", .serialized)
struct RevocationCheckerTests {
    let logger = Logger(label: "test")

    func redis(database: Int = 15) throws -> RedisClient {
        var url = try RedisURL(parsing: try requiredEnvironment("REDIS_URL"))
        url.database = database
        return RedisClient(configuration: RedisConfiguration(url: url, poolSize: 2), logger: self.logger)
    }

    func token(issuedAt: Int64 = Int64(Date().timeIntervalSince1970 * 1000)) -> VerifiedToken {
        VerifiedToken(caller: Caller(userID: UUID(), sessionID: UUID(), isAdmin: false), issuedAt: issuedAt)
    }

    @Test func verdictsFromTheKeys() async throws {
        let redis = try self.redis()
        defer { Task { await redis.shutdown() } }
        let checker = RevocationChecker(redis: redis, failOpen: false)
        _ = try await redis.command(["SET", RevocationKeys.complete, "1"])

        let live = self.token()
        #expect(try await checker.check(live, logger: self.logger) == .live)

        let loggedOut = self.token()
        _ = try await redis.command(["SET", RevocationKeys.session(loggedOut.caller.sessionID), "logout", "EX", "60"])
        #expect(try await checker.check(loggedOut, logger: self.logger) == .revoked(reason: "logout"))

        let deactivated = self.token()
        _ = try await redis.command(
            ["SET", RevocationKeys.session(deactivated.caller.sessionID), "deactivated", "EX", "60"])
        #expect(try await checker.check(deactivated, logger: self.logger) == .revoked(reason: "deactivated"))

        // The user's not-before kills tokens issued before it, and only those, to the
        // millisecond: a token issued 2 ms after it, in the same second, lives.
        let now = Int64(Date().timeIntervalSince1970) * 1000 + 300
        let old = self.token(issuedAt: now - 1)
        let userKey = RevocationKeys.user(old.caller.userID)
        _ = try await redis.command(["SET", userKey, RevocationKeys.notBeforeValue(milliseconds: now), "EX", "60"])
        #expect(try await checker.check(old, logger: self.logger) == .revoked(reason: nil))
        var fresh = self.token(issuedAt: now + 2)
        fresh.caller.userID = old.caller.userID
        #expect(try await checker.check(fresh, logger: self.logger) == .live)
        // A whole-second value (written by an earlier version) is still read as seconds.
        _ = try await redis.command(["SET", userKey, "\(now / 1000 + 1)", "EX", "60"])
        #expect(try await checker.check(fresh, logger: self.logger) == .revoked(reason: nil))
    }

    @Test func aMissingMarkerFailsClosedUnlessFailOpen() async throws {
        let redis = try self.redis()
        defer { Task { await redis.shutdown() } }
        _ = try await redis.command(["DEL", RevocationKeys.complete])
        let closed = RevocationChecker(redis: redis, failOpen: false)
        await #expect(throws: APIError.self) { try await closed.check(self.token(), logger: self.logger) }
        do {
            _ = try await closed.check(self.token(), logger: self.logger)
        } catch let error as APIError {
            #expect(error.status == .serviceUnavailable)
            #expect(error.code == .serviceUnavailable)
        }
        let open = RevocationChecker(redis: redis, failOpen: true)
        #expect(try await open.check(self.token(), logger: self.logger) == .live)
        _ = try await redis.command(["SET", RevocationKeys.complete, "1"])
    }

    @Test func anUnreachableRedisFailsClosedUnlessFailOpen() async throws {
        let port = try freePort()
        let redis = RedisClient(
            configuration: RedisConfiguration(url: RedisURL(host: "127.0.0.1", port: port), poolSize: 1), logger: self.logger)
        defer { Task { await redis.shutdown() } }
        do {
            _ = try await RevocationChecker(redis: redis, failOpen: false).check(self.token(), logger: self.logger)
            Issue.record("a check without Redis passed")
        } catch let error as APIError {
            #expect(error.status == .serviceUnavailable)
        }
        #expect(try await RevocationChecker(redis: redis, failOpen: true).check(self.token(), logger: self.logger) == .live)
    }
}

@Suite("JSON bodies")
struct JSONBodyTests {
    @Test func depthIgnoresBracketsInStrings() {
        #expect(JSONBody.depth(of: .init(string: #"{"a":[1,{"b":"[[[[["}]}"#)) == 3)
        #expect(JSONBody.depth(of: .init(string: #"{"a":"\"[[[["}"#)) == 1)
        #expect(JSONBody.depth(of: .init(string: String(repeating: "[", count: 20))) == 20)
    }

    /// Plain bodies are read in one pass, the others by Foundation: the result is the same.
    @Test(arguments: [
        #"{"user_id":"u","item_ids":["a","b/c","\u00e9"],"limit":-5,"ok":true,"none":null,"o":{"p":[]}}"#,
        #"{"position":1.0,"ratio":1.5,"huge":99999999999999999999}"#,
        #"{"a":1,"a":2}"#,
    ])
    func bodiesReadAsFoundationReadsThem(_ text: String) throws {
        let expected = try JSONDecoder().decode(JSONObject.self, from: Data(text.utf8))
        #expect(try JSONBody.object(ByteBuffer(string: text)) == expected)
    }

    /// What the gateway forwards, read again (as a backend does), is forwarded the same: a
    /// number with a fraction beyond `Double`'s precision (found by the request-body fuzz
    /// target) went out as `3.9908000015308754e+18`, which a second reading took as another
    /// integer.
    @Test(arguments: [
        #"{"n":3990800001530875316.5}"#, #"{"n":1.0,"m":-0.0,"k":1e2,"j":0.1}"#, #"{"n":9.3e18,"m":-9.2e18}"#,
        #"{"n":12345678901234567890,"m":[1.5e300,-4e-300]}"#, #"{"n":9007199254740993.5}"#,
    ])
    func forwardedParamsReadAgainAreForwardedTheSame(_ text: String) throws {
        let forwarded = try JSONBody.object(ByteBuffer(string: text)).encoded()
        let again = try JSONBody.object(ByteBuffer(data: forwarded)).encoded()
        let first = try #require(try JSONSerialization.jsonObject(with: forwarded) as? NSDictionary)
        let second = try #require(try JSONSerialization.jsonObject(with: again) as? NSDictionary)
        #expect(first.isEqual(second), "\(String(decoding: forwarded, as: UTF8.self)) then \(String(decoding: again, as: UTF8.self))")
    }

    @Test(arguments: ["[1]", "\"text\"", "{\"a\":", "{\"a\":1} x", "{\"a\":\"\u{01}\"}"])
    func bodiesThatAreNotObjectsAreBadRequests(_ text: String) {
        #expect(throws: APIError.self) { try JSONBody.object(ByteBuffer(string: text)) }
    }

    /// A state query's body of `item_ids` alone is read straight from the bytes, to the ids the
    /// general reading gives; any other body is left to that reading (nil).
    @Test(arguments: [
        #"{"item_ids":["item-1","item-2"]}"#,
        " {\n \"item_ids\" : [ \"a\" , \"b/c\"\t] } \n",
        #"{"item_ids":["\"q\"","\u00e9\ud83d\ude00","caf\#u{E9}",""]}"#,
        #"{"item_ids":[]}"#,
    ])
    func itemIDBodiesReadInOnePassAsTheObjectReadsThem(_ text: String) throws {
        let ids = try #require(JSONBody.onlyItemIDs(ByteBuffer(string: text)))
        #expect(ids == (try JSONBody.object(ByteBuffer(string: text)).itemIDs()))
    }

    @Test(arguments: [
        #"{"item_ids":["a"],"extra":1}"#, #"{"item_ids":["a"],"item_ids":["b"]}"#, #"{"item_ids":["a\u0000b"]}"#,
        #"{"item_ids":"a"}"#, #"{"item_ids":[1]}"#, #"{"item_ids":[null]}"#, #"{"item_ids":["a"]} x"#, #"{"ids":["a"]}"#,
        #"["a"]"#, #"{"item_ids":["a"]"#, "{}",
    ])
    func otherBodiesAreLeftToTheGeneralReading(_ text: String) {
        #expect(JSONBody.onlyItemIDs(ByteBuffer(string: text)) == nil)
    }

    @Test func copyKeepsNullsAndLeavesAbsentMembersOut() throws {
        var params: JSONObject = ["user_id": "u"]
        params.copy(["nickname", "position"], from: ["nickname": .null, "other": .int(1)])
        #expect(params == ["user_id": "u", "nickname": .null])
        let json = String(decoding: try params.encoded(), as: UTF8.self)
        #expect(json.contains(#""nickname":null"#))
        #expect(!json.contains("position"))
    }
}
