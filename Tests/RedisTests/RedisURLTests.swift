import Redis
import Testing

/// `REDIS_URL` parsing: accepted shapes, defaults, and rejected ones.
@Suite struct RedisURLTests {
    @Test func parsesHostPortAndDatabase() throws {
        let url = try RedisURL(parsing: "redis://127.0.0.1:6380/2")
        #expect(url == RedisURL(host: "127.0.0.1", port: 6380, database: 2))
    }

    @Test func appliesDefaultPortAndDatabase() throws {
        #expect(try RedisURL(parsing: "redis://cache.internal") == RedisURL(host: "cache.internal", port: 6379, database: 0))
        #expect(try RedisURL(parsing: "redis://cache.internal/") == RedisURL(host: "cache.internal"))
    }

    @Test func readsPasswordWithoutUser() throws {
        let url = try RedisURL(parsing: "redis://:s3cret@redis:7000/1")
        #expect(url == RedisURL(host: "redis", port: 7000, username: nil, password: "s3cret", database: 1))
    }

    @Test func readsUserAndPassword() throws {
        let url = try RedisURL(parsing: "redis://alice:s3cret@redis")
        #expect(url.username == "alice")
        #expect(url.password == "s3cret")
    }

    @Test func percentDecodesCredentials() throws {
        #expect(try RedisURL(parsing: "redis://:p%40ss%2Fw%3Ard@redis").password == "p@ss/w:rd")
    }

    @Test func acceptsUnencodedSpecialCharactersInPassword() throws {
        let url = try RedisURL(parsing: "redis://:pa/ss@w#rd@redis:7000/3")
        #expect(url == RedisURL(host: "redis", port: 7000, password: "pa/ss@w#rd", database: 3))
    }

    @Test func readsTLSScheme() throws {
        let url = try RedisURL(parsing: "REDISS://app:pw@cache.internal:6380/2")
        #expect(url == RedisURL(host: "cache.internal", port: 6380, username: "app", password: "pw", database: 2, tls: true))
        #expect(url.description == "rediss://app:***@cache.internal:6380/2")
        #expect(try RedisURL(parsing: "redis://cache").tls == false)
    }

    @Test func readsBracketedIPv6Host() throws {
        #expect(try RedisURL(parsing: "redis://[::1]:6390") == RedisURL(host: "::1", port: 6390))
    }

    @Test(arguments: [
        "", "localhost:6379", "http://redis", "redisss://redis", "rediss:/redis", "rediss://", "redis://", "redis://:6379", "redis:///0",
        "redis://redis:0", "redis://redis:65536", "redis://redis:port", "redis://redis:-1", "redis://redis/db",
        "redis://redis/-1", "redis://redis?db=1", "redis://[::1", "redis://[::1]x", "redis://re dis",
        "redis://:bad%zzescape@redis",
    ])
    func rejectsMalformedURL(_ text: String) {
        #expect(throws: RedisError.self) { try RedisURL(parsing: text) }
    }

    @Test(arguments: [
        "redis://:hunter2secret@redis:notaport", "redis://:hunter2secret@", "redis://u:hunter2secret@redis/x",
        "redis://:hunter2secret", "http://:hunter2secret@redis", "redis://:hunter2secret@redis?x=1",
    ])
    func errorTextNeverContainsPassword(_ text: String) {
        do {
            _ = try RedisURL(parsing: text)
            Issue.record("\(text) should be rejected")
        } catch {
            guard case .invalidURL(let message) = error as? RedisError else {
                Issue.record("expected .invalidURL, got \(error)")
                return
            }
            #expect(!message.contains("hunter2"))
            #expect(!String(describing: error).contains("hunter2"))
        }
    }

    @Test func descriptionRedactsPassword() throws {
        let url = try RedisURL(parsing: "redis://alice:hunter2secret@redis:7000/1")
        #expect(url.description == "redis://alice:***@redis:7000/1")
        #expect(!"\(url)".contains("hunter2"))
    }
}
