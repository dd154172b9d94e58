import Foundation
import Redis
import TestSupport
import Testing

/// `rediss://`: commands, pipelines and subscriptions over TLS against a `redis-server` that
/// speaks TLS only, with a throwaway authority; and every way a TLS connection must refuse.
@Suite(.timeLimit(.minutes(2))) struct RedisTLSTests {
    /// A folder with `ca.crt`, `redis.crt`/`redis.key`, `client.crt`/`client.key` and the
    /// untrusted `other-ca.crt`; removed after `body`.
    private func withCertificates<T>(_ body: (String) async throws -> T) async throws -> T {
        let folder = NSTemporaryDirectory() + "redis-tls-" + UUID().uuidString.prefix(8).lowercased()
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try await TestCertificates.make(in: folder, names: ["redis", "client"])
        return try await body(folder)
    }

    private func withTLSServer<T>(arguments: [String] = [], _ body: (PrivateRedisServer, String) async throws -> T) async throws -> T {
        try await withCertificates { folder in
            try await PrivateRedisServer.with(arguments: arguments, certificates: folder) { server in
                try await body(server, folder)
            }
        }
    }

    @Test func commandsPipelinesAndSubscriptionsRunOverTLS() async throws {
        try await withTLSServer { server, folder in
            let tls = try RedisTLSContext(caFile: folder + "/ca.crt")
            try await TestRedis.withClient(url: server.url, poolSize: 2, configure: { $0.tls = tls }) { redis in
                #expect(try await redis.command("SET", "greeting", String(repeating: "x", count: 100_000)) == .string("OK"))
                #expect(try await redis.command("GET", "greeting") == .string(String(repeating: "x", count: 100_000)))
                let replies = try await redis.pipeline([["INCR", "n"], ["INCR", "n"], ["GET", "n"]])
                #expect(replies == [.integer(1), .integer(2), .string("2")])
                let subscription = try await redis.subscribe(to: "news")
                for index in 1...5 { #expect(try await redis.command("PUBLISH", "news", "item \(index)") == .integer(1)) }
                var iterator = subscription.makeAsyncIterator()
                for index in 1...5 { #expect(await iterator.next()?.payload == "item \(index)") }
                subscription.cancel()
            }
        }
    }

    /// TLS 1.3 servers send session tickets after the handshake; an idle connection holding
    /// them unread must not look closed, or every command would open a new connection.
    @Test func idleConnectionsAreReusedAcrossSessionTickets() async throws {
        try await withTLSServer { server, folder in
            let tls = try RedisTLSContext(caFile: folder + "/ca.crt")
            try await TestRedis.withClient(url: server.url, poolSize: 1, configure: { $0.tls = tls }) { redis in
                for _ in 1...5 {
                    _ = try await redis.command("PING")
                    try await Task.sleep(for: .milliseconds(50))
                }
                let info = try #require(try await redis.command("INFO", "stats").stringValue)
                #expect(info.contains("total_connections_received:1\r\n"), "one connection for every command")
            }
        }
    }

    @Test func aclUserAuthenticatesOverTLS() async throws {
        try await withTLSServer(arguments: ["--user", "reader", "on", ">reader-secret", "~cache:*", "+get", "+set", "+ping"]) { server, folder in
            let tls = try RedisTLSContext(caFile: folder + "/ca.crt")
            var url = server.url
            url.username = "reader"
            url.password = "reader-secret"
            try await TestRedis.withClient(url: url, poolSize: 1, configure: { $0.tls = tls }) { redis in
                #expect(try await redis.command("SET", "cache:a", "1") == .string("OK"))
                do {
                    _ = try await redis.command("DEL", "cache:a")
                    Issue.record("the ACL user ran DEL")
                } catch RedisError.server(let message) {
                    #expect(message.hasPrefix("NOPERM"), "\(message)")
                }
            }
        }
    }

    @Test func serverSignedByAnotherAuthorityIsRefused() async throws {
        try await withTLSServer { server, folder in
            let tls = try RedisTLSContext(caFile: folder + "/other-ca.crt")
            let error = await refusal(url: server.url, tls: tls)
            // OpenSSL's verify result names the reason ("self-signed certificate in certificate chain").
            #expect(error.contains("TLS handshake with 127.0.0.1 failed") && error.contains("certificate"), "\(error)")
        }
    }

    @Test func certificateForAnotherHostIsRefused() async throws {
        try await withTLSServer(arguments: ["--bind", "127.0.0.1", "127.0.0.2"]) { server, folder in
            let tls = try RedisTLSContext(caFile: folder + "/ca.crt")
            var url = server.url
            url.host = "127.0.0.2"  // the certificate names localhost and 127.0.0.1 only
            let error = await refusal(url: url, tls: tls)
            #expect(error.contains("mismatch"), "\(error)")
        }
    }

    @Test func plainClientAndMissingSettingsFailWithoutHanging() async throws {
        try await withTLSServer { server, _ in
            var plain = server.url
            plain.tls = false
            _ = await refusal(url: plain, tls: nil)
            let error = await refusal(url: server.url, tls: nil)
            #expect(error.contains("rediss:// needs TLS settings"), "\(error)")
        }
    }

    @Test func clientCertificateIsPresentedWhenTheServerRequiresOne() async throws {
        try await withTLSServer(arguments: ["--tls-auth-clients", "yes"]) { server, folder in
            let anonymous = try RedisTLSContext(caFile: folder + "/ca.crt")
            _ = await refusal(url: server.url, tls: anonymous)
            let tls = try RedisTLSContext(caFile: folder + "/ca.crt", certificateFile: folder + "/client.crt", keyFile: folder + "/client.key")
            try await TestRedis.withClient(url: server.url, poolSize: 1, configure: { $0.tls = tls }) { redis async throws in
                #expect(try await redis.command("PING") == .string("PONG"))
            }
        }
    }

    @Test func unreadableOrMismatchedFilesAreRefusedAtOnce() async throws {
        try await withCertificates { folder in
            #expect(throws: RedisError.self) { try RedisTLSContext(caFile: folder + "/missing.crt") }
            #expect(throws: RedisError.self) { try RedisTLSContext(caFile: folder + "/ca.crt", certificateFile: folder + "/client.crt") }
            #expect(throws: RedisError.self) {
                try RedisTLSContext(caFile: folder + "/ca.crt", certificateFile: folder + "/client.crt", keyFile: folder + "/redis.key")
            }
        }
    }

    /// The error text of a command that must fail, within the client's own timeouts.
    private func refusal(url: RedisURL, tls: RedisTLSContext?) async -> String {
        do {
            try await TestRedis.withClient(url: url, poolSize: 1, configure: { configuration in
                configuration.tls = tls
                configuration.connectTimeout = .seconds(2)
                configuration.commandTimeout = .seconds(2)
            }) { redis in
                _ = try await redis.command("PING")
            }
            Issue.record("\(url) answered")
            return ""
        } catch {
            return "\(error)"
        }
    }
}
