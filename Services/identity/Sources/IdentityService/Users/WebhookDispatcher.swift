import AsyncHTTPClient
import Crypto
import FoundationEssentials
import IdentityAPI
import Logging
import CoreMetrics
import NIOCore
import Postgres
import ServiceLifecycle
import TextCoding

/// Pushes the user event feed to every `WEBHOOK_URLS` entry (DESIGN.md section 9.4): each
/// event POSTed as JSON with `Latchkey-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "t.body">`,
/// retried with backoff (1 s, doubling, at most `WEBHOOK_MAX_BACKOFF`) until a 2xx. A receiver
/// gets the feed's events one after the other, in commit order (so each user's in order), at
/// least once: its cursor (`identity.webhook_cursors`) moves only after a 2xx. A replica
/// delivers to a URL only while it holds that URL's cursor row locked, so replicas share the
/// work without delivering one URL twice at once.
struct WebhookDispatcher: Service {
    let postgres: PostgresClient
    let http: HTTPClient
    let settings: IdentityConfiguration.WebhookSettings
    let logger: Logger
    /// How long an idle receiver waits before it looks at the feed again (events of other
    /// replicas arrive only through the table).
    var idleWait: Duration = .milliseconds(500)

    /// What one delivery step did.
    enum Step: Equatable {
        case delivered
        case idle
        case failed
        /// Another replica holds the URL.
        case busy
    }

    func run() async throws {
        for url in self.settings.urls {
            // A new receiver starts at the feed's end: it gets what happens from now on.
            try await self.postgres.execute(
                """
                INSERT INTO identity.webhook_cursors (url, seq)
                SELECT $1, COALESCE((SELECT max(seq) FROM identity.user_events), 0)
                ON CONFLICT (url) DO NOTHING
                """, [.text(url)])
        }
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                for (index, url) in self.settings.urls.enumerated() {
                    group.addTask { await self.deliver(to: url, receiver: index) }
                }
            }
        }
    }

    /// Delivers to one URL until cancelled, backing off after each failure.
    private func deliver(to url: String, receiver: Int) async {
        var backoff = self.settings.initialBackoff
        while !Task.isCancelled {
            let step: Step
            do {
                step = try await self.deliverNext(to: url, receiver: receiver)
            } catch {
                self.logger.warning("Webhook delivery step failed", metadata: ["webhook.receiver": "\(receiver)", "error": "\(error)"])
                step = .failed
            }
            switch step {
            case .delivered:
                backoff = self.settings.initialBackoff
                continue
            case .idle, .busy:
                try? await Task.sleep(for: self.idleWait)
            case .failed:
                try? await Task.sleep(for: backoff)
                backoff = min(backoff * 2, self.settings.maximumBackoff)
            }
        }
    }

    /// POSTs the next event after the URL's cursor, and moves the cursor on a 2xx.
    func deliverNext(to url: String, receiver: Int) async throws -> Step {
        try await self.postgres.withTransaction { connection in
            let cursors = try await connection.query(
                "SELECT seq FROM identity.webhook_cursors WHERE url = $1 FOR UPDATE SKIP LOCKED", [.text(url)])
            guard let cursor = try cursors.first?.decode("seq", as: Int.self) else { return .busy }
            let rows = try await connection.query(
                """
                SELECT seq, id, type, user_id, data::text AS data, extract(epoch FROM occurred_at)::float8 AS occurred_epoch,
                       to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS occurred_at
                FROM identity.user_events WHERE seq > $1 ORDER BY seq LIMIT 1
                """, [.int(cursor)])
            guard let row = rows.first else { return .idle }
            let body = try Self.body(
                id: row.decode("id"), type: row.decode("type"), userID: row.decode("user_id"), occurredAt: row.decode("occurred_at"),
                data: row.decode("data"))
            let receiverLabel = String(receiver)
            guard try await self.post(body, to: url) else {
                Counter(label: "identity_webhook_attempts_total", dimensions: [("receiver", receiverLabel), ("outcome", "failed")]).increment()
                return .failed
            }
            Counter(label: "identity_webhook_attempts_total", dimensions: [("receiver", receiverLabel), ("outcome", "delivered")]).increment()
            let lag = Date().timeIntervalSince1970 - (try row.decode("occurred_epoch", as: Double.self))
            CoreMetrics.Timer(label: "identity_webhook_delivery_lag_seconds", dimensions: [("receiver", receiverLabel)])
                .recordNanoseconds(Int64(max(0, lag) * 1_000_000_000))
            try await connection.execute(
                "UPDATE identity.webhook_cursors SET seq = $2 WHERE url = $1", [.text(url), .int(try row.decode("seq", as: Int.self))])
            return .delivered
        }
    }

    /// The event as receivers get it: `{"id","type","user_id","occurred_at","data"}`.
    static func body(id: UUID, type: String, userID: UUID, occurredAt: String, data: String) throws -> [UInt8] {
        var text = #"{"id":""# + id.lowercasedText + #"","type":"# + Self.quoted(type)
        text += #","user_id":""# + userID.lowercasedText + #"","occurred_at":""# + occurredAt + #"","data":"# + data + "}"
        return Array(text.utf8)
    }

    private static func quoted(_ text: String) -> String {
        String(decoding: (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8), as: UTF8.self)
    }

    /// `Latchkey-Signature` of `body` at `time`: `t=<unix>,v1=<hex HMAC-SHA256(secret, "t.body")>`.
    static func signature(_ body: [UInt8], secret: [UInt8], time: Int) -> String {
        var message = Array("\(time).".utf8)
        message += body
        let mac = HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: secret))
        return "t=\(time),v1=" + HexDigit.lowercase(Array(mac))
    }

    /// One attempt: true on a 2xx.
    private func post(_ body: [UInt8], to url: String) async throws -> Bool {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "User-Agent", value: "latchkey-webhooks/1")
        request.headers.add(
            name: "Latchkey-Signature",
            value: Self.signature(body, secret: self.settings.secret, time: Int(Date().timeIntervalSince1970)))
        request.body = .bytes(ByteBuffer(bytes: body))
        do {
            let response = try await self.http.execute(request, timeout: .seconds(10))
            _ = try? await response.body.collect(upTo: 64 * 1024)
            return (200..<300).contains(response.status.code)
        } catch {
            return false
        }
    }
}
