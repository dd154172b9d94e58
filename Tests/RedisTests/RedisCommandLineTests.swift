import Foundation
import Redis
import TestSupport
import Testing

/// Commands of concurrent callers sent in shared pipelines: each caller gets its own reply, an
/// error reply fails its caller only, and a lost server fails everyone waiting, without hanging.
@Suite(.timeLimit(.minutes(2))) struct RedisCommandLineTests {
    @Test func concurrentCallersEachGetTheirOwnReply() async throws {
        let prefix = TestRedis.keyPrefix()
        try await TestRedis.withClient(poolSize: 2) { redis in
            let line = RedisCommandLine(redis: redis)
            // 300 SET NX over 100 keys, all at once: exactly one winner per key.
            let wins = try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
                for index in 0..<300 {
                    group.addTask {
                        let reply = try await line.run(["SET", prefix + String(index % 100), String(index), "NX", "EX", "60"])
                        return (index % 100, !reply.isNull)
                    }
                }
                var wins = [Int: Int]()
                for try await (key, won) in group where won { wins[key, default: 0] += 1 }
                return wins
            }
            #expect(wins.count == 100 && wins.values.allSatisfy { $0 == 1 })
            // Each winner's value is the one stored.
            let stored = try await redis.command(["GET", prefix + "7"]).stringValue.flatMap(Int.init)
            #expect(stored.map { $0 % 100 } == 7)
        }
    }

    @Test func anErrorReplyFailsItsCallerOnly() async throws {
        let prefix = TestRedis.keyPrefix()
        try await TestRedis.withClient(poolSize: 1) { redis in
            let line = RedisCommandLine(redis: redis)
            _ = try await redis.command(["SET", prefix + "text", "not a number"])
            let outcomes = await withTaskGroup(of: (Int, Result<RedisValue, any Error>).self) { group in
                for index in 0..<40 {
                    group.addTask {
                        do {
                            let command = index == 20 ? ["INCR", prefix + "text"] : ["INCR", prefix + "counter"]
                            return (index, .success(try await line.run(command)))
                        } catch {
                            return (index, .failure(error))
                        }
                    }
                }
                var outcomes = [Int: Result<RedisValue, any Error>]()
                for await (index, outcome) in group { outcomes[index] = outcome }
                return outcomes
            }
            for (index, outcome) in outcomes {
                switch outcome {
                case .success: #expect(index != 20)
                case .failure(let error):
                    #expect(index == 20)
                    #expect((error as? RedisError).map { if case .server = $0 { true } else { false } } == true, "\(error)")
                }
            }
            #expect(try await redis.command(["GET", prefix + "counter"]).intValue == 39)
        }
    }

    @Test func aLostServerFailsEveryoneWaiting() async throws {
        try await PrivateRedisServer.with { server in
            try await TestRedis.withClient(url: server.url, poolSize: 1, configure: { $0.commandTimeout = .seconds(2) }) { redis async throws in
                let line = RedisCommandLine(redis: redis)
                // The 2 s timeout is for the calls after the server is gone; the first answer may
                // take longer on a busy machine, so it is asked again until it comes.
                try await waitUntil("the server answers PING", interval: .milliseconds(100)) {
                    (try? await line.run(["PING"])) == .string("PONG")
                }
                server.stop()
                let failures = await withTaskGroup(of: Bool.self) { group in
                    for _ in 0..<20 {
                        group.addTask { (try? await line.run(["PING"])) == nil }
                    }
                    return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
                }
                #expect(failures == 20)
            }
        }
    }
}
