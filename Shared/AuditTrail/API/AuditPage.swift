import FoundationEssentials

/// `*.audit.list` params: newest first, optionally one user's or one type's; `limit` 1–200
/// (default 50); `cursor` from the previous page's `next_cursor`.
public struct AuditListParams: Codable, Sendable, Equatable {
    public var userID: UUID?
    public var type: String?
    public var limit: Int?
    public var cursor: String?

    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
        case type, limit, cursor
    }

    public init(userID: UUID? = nil, type: String? = nil, limit: Int? = nil, cursor: String? = nil) {
        self.userID = userID
        self.type = type
        self.limit = limit
        self.cursor = cursor
    }
}

/// A page of the trail, newest first; `next_cursor` null on the last page.
public struct AuditPage: Codable, Sendable, Equatable {
    public var events: [AuditEvent]
    public var nextCursor: String?

    enum CodingKeys: String, CodingKey {
        case events
        case nextCursor = "next_cursor"
    }

    public init(events: [AuditEvent], nextCursor: String?) {
        self.events = events
        self.nextCursor = nextCursor
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.events, forKey: .events)
        try container.encode(self.nextCursor, forKey: .nextCursor)
    }

    /// The newest `limit` events of several services' pages for the same params (identity's
    /// and tokens' trails): each page is newest first by (time, id), so the merge of their
    /// first `limit` is the first `limit` of all, and its last event is where the next page
    /// starts in every trail.
    public static func merged(_ pages: [AuditPage], limit: Int) -> AuditPage {
        let all = pages.flatMap(\.events).sorted { AuditCursor(event: $0) > AuditCursor(event: $1) }
        let page = Array(all.prefix(limit))
        let more = all.count > limit || pages.contains { $0.nextCursor != nil }
        return AuditPage(events: page, nextCursor: more ? page.last.map { AuditCursor(event: $0).text } : nil)
    }
}

/// Where a page of the trail ends: the last event's time (µs since the epoch) and id, sent as
/// opaque base64url text. Ordered as the trail is read (time, then id).
public struct AuditCursor: Comparable, Sendable {
    public var micros: Int64
    public var id: UUID

    public init(micros: Int64, id: UUID) {
        self.micros = micros
        self.id = id
    }

    init(event: AuditEvent) {
        self.init(micros: Self.micros(event.occurredAt), id: event.id)
    }

    /// Microseconds since the epoch of an RFC 3339 time as the trail writes it.
    static func micros(_ text: String) -> Int64 {
        // "2026-11-28T07:13:43.123456Z": whole seconds parsed, the fraction read as digits.
        let parts = text.dropLast().split(separator: ".", maxSplits: 1)
        let whole = try? Date.ISO8601FormatStyle(timeZone: .gmt).parse(String(parts[0]) + "Z")
        let seconds = whole.map { Int64($0.timeIntervalSince1970) } ?? 0
        var fraction = parts.count > 1 ? String(parts[1].prefix(6)) : ""
        while fraction.count < 6 { fraction += "0" }
        return seconds * 1_000_000 + (Int64(fraction) ?? 0)
    }

    public init?(text: String) {
        var base64 = text.replacing("-", with: "+").replacing("_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard text.count <= 128, let data = Data(base64Encoded: base64) else { return nil }
        let parts = String(decoding: data, as: UTF8.self).split(separator: "|")
        guard parts.count == 2, let micros = Int64(parts[0]), parts[1].utf8.count == 36, let id = UUID(uuidString: String(parts[1]))
        else { return nil }
        self.init(micros: micros, id: id)
    }

    public var text: String {
        Data("\(self.micros)|\(self.id.uuidString.lowercased())".utf8).base64EncodedString()
            .replacing("+", with: "-").replacing("/", with: "_").replacing("=", with: "")
    }

    public static func < (a: Self, b: Self) -> Bool {
        (a.micros, a.id.uuidString.lowercased()) < (b.micros, b.id.uuidString.lowercased())
    }
}
