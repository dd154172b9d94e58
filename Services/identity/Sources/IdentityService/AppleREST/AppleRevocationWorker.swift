import FoundationEssentials
import Logging
import Postgres
import ServiceLifecycle

/// Empties the `identity.apple_revocations` outbox: revokes each token at Apple, retrying
/// failures with exponential backoff (2 s doubling, up to `maximumAttempts`), logging every
/// failure. Deletions never wait for it; `nudge()` makes it look at once.
final class AppleRevocationWorker: Service, Sendable {
    static let maximumAttempts = 8
    static let pollInterval: Duration = .seconds(30)

    private let postgres: PostgresClient
    private let client: AppleTokenClient
    private let cipher: RefreshTokenCipher
    private let logger: Logger
    private let wakeUps: AsyncStream<Void>
    private let wakeUp: AsyncStream<Void>.Continuation

    init(postgres: PostgresClient, client: AppleTokenClient, cipher: RefreshTokenCipher, logger: Logger) {
        self.postgres = postgres
        self.client = client
        self.cipher = cipher
        self.logger = logger
        (self.wakeUps, self.wakeUp) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Asks the worker to look at the outbox now.
    func nudge() {
        self.wakeUp.yield()
    }

    func run() async throws {
        await withGracefulShutdownHandler {
            // One timer at a time rings when the next retry (or poll) is due, and a nudge comes
            // sooner; no query while idle. The first look is at start.
            var timer: Task<Void, Never>?
            self.wakeUp.yield()
            for await _ in self.wakeUps {
                let wait = await self.drain()
                timer?.cancel()
                timer = Task { [wakeUp] in
                    try? await Task.sleep(for: wait)
                    if !Task.isCancelled { wakeUp.yield() }
                }
            }
            timer?.cancel()
        } onGracefulShutdown: {
            self.wakeUp.finish()
        }
    }

    /// Revokes everything due; returns how long to wait before the next retry is due.
    func drain() async -> Duration {
        while !Task.isCancelled {
            let batch: [PostgresRow]
            do {
                batch = try await self.postgres.query(
                    """
                    UPDATE identity.apple_revocations SET attempts = attempts + 1, next_attempt_at = now() + interval '1 minute'
                    WHERE id IN (
                        SELECT id FROM identity.apple_revocations WHERE next_attempt_at <= now()
                        ORDER BY id LIMIT 16 FOR UPDATE SKIP LOCKED)
                    RETURNING id, client_id, refresh_token, attempts
                    """)
            } catch {
                self.logger.warning("Cannot read the Apple revocation outbox", metadata: ["error": "\(error)"])
                return .seconds(5)
            }
            if batch.isEmpty { break }
            for row in batch { await self.revoke(row) }
        }
        return await self.nextDue()
    }

    private func revoke(_ row: PostgresRow) async {
        guard let id = try? row.decode("id", as: Int.self), let attempts = try? row.decode("attempts", as: Int.self),
            let clientID = try? row.decode("client_id", as: String.self),
            let sealed = try? row.decode("refresh_token", as: [UInt8].self)
        else { return }
        let outcome: AppleTokenClient.RevokeOutcome
        if let token = try? self.cipher.open(sealed) {
            outcome = await self.client.revoke(refreshToken: token, clientID: clientID)
        } else {
            outcome = .failed("cannot decrypt the stored token (APPLE_TOKEN_ENCRYPTION_KEY changed?)")
        }
        let metadata: Logger.Metadata = ["apple.revocation.id": "\(id)", "apple.revocation.attempt": "\(attempts)"]
        switch outcome {
        case .revoked, .alreadyInvalid:
            self.logger.info("Revoked Apple authorization", metadata: metadata)
            _ = try? await self.postgres.execute("DELETE FROM identity.apple_revocations WHERE id = $1", [.int(id)])
        case .failed(let reason) where attempts >= Self.maximumAttempts:
            self.logger.error(
                "Giving up revoking an Apple authorization", metadata: metadata.merging(["error": "\(reason)"]) { $1 })
            _ = try? await self.postgres.execute("DELETE FROM identity.apple_revocations WHERE id = $1", [.int(id)])
        case .failed(let reason):
            let delay = min(1 << attempts, 3600)
            self.logger.warning(
                "Apple revocation failed; will retry",
                metadata: metadata.merging(["error": "\(reason)", "retry.seconds": "\(delay)"]) { $1 })
            _ = try? await self.postgres.execute(
                """
                UPDATE identity.apple_revocations
                SET next_attempt_at = now() + $2::int * interval '1 second', last_error = $3 WHERE id = $1
                """, [.int(id), .int(delay), .text(reason)])
        }
    }

    private func nextDue() async -> Duration {
        let rows = try? await self.postgres.query(
            "SELECT (extract(epoch FROM min(next_attempt_at) - now()) * 1000)::bigint AS ms FROM identity.apple_revocations")
        guard let ms = try? rows?.first?.decode("ms", as: Int?.self) else { return Self.pollInterval }
        return min(.milliseconds(max(ms, 50)), Self.pollInterval)
    }
}
