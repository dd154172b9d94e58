import AuditAPI
import Foundation
import Testing

/// The admin trail merges identity's and tokens' pages newest first by the events' times, to
/// the microsecond, and its cursor names the last event's time and id.
@Suite struct AuditPageMergeTests {
    private func event(_ occurredAt: String) -> AuditEvent {
        AuditEvent(
            id: UUID(), type: "sign_in", occurredAt: occurredAt, userID: nil, sessionID: nil, ip: nil, userAgent: nil,
            requestID: nil, details: [:])
    }

    @Test func pagesMergeByTheirTimesToTheMicrosecondAndTheCursorNamesTheLast() throws {
        let identity = [event("2026-11-28T07:13:44.000001Z"), event("2026-11-28T07:13:43.5Z")]
        let tokens = [event("2026-11-28T07:13:44Z"), event("2026-11-28T07:13:43.123456Z")]
        let page = AuditPage.merged([AuditPage(events: identity, nextCursor: nil), AuditPage(events: tokens, nextCursor: nil)], limit: 3)
        #expect(page.events.map(\.occurredAt) == ["2026-11-28T07:13:44.000001Z", "2026-11-28T07:13:44Z", "2026-11-28T07:13:43.5Z"])
        let cursor = try #require(page.nextCursor.flatMap { AuditCursor(text: $0) })
        // 2026-11-28T07:13:43Z is 1,795,850,023 s after the epoch.
        #expect(cursor == AuditCursor(micros: 1_795_850_023_500_000, id: identity[1].id))
        #expect(AuditCursor(text: cursor.text) == cursor)
    }
}
