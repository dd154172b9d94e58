import Foundation
import IdentityService
import ServiceProtocol

/// The `events` claim of an Apple server-to-server notification (a JSON object written as a
/// string), read as identity reads it once the notification's signature holds.
/// Properties: nothing traps; a refusal is `invalidToken`; what is accepted, Foundation reads as
/// an object with the same `type`, `sub`, `email`, `event_time` (an integer, or a string of one)
/// and `is_private_email` ("true" in any case, as a string); the subject can be stored (1 to 255
/// bytes, no NUL); the same event written out again reads the same; and an object of nothing
/// but a string `type` and a storable `sub`, each named once, is never refused.
enum AppleEventsFuzzing {
    static let labels: Set<String> = ["consent-revoked", "account-delete", "email-disabled", "email-enabled", "unknown"]

    static func run(_ bytes: UnsafeRawBufferPointer) {
        let events = String(decoding: bytes, as: UTF8.self)
        let object = FoundationJSON.object(events.utf8)
        switch IdentityFuzzing.appleEvent(events) {
        case .failure(let error):
            guard case .invalidToken = error else {
                FuzzCheck.require(false, "refused with \(error)")
                return
            }
            // A plain event: two members, each named once (with a name twice, JSONSerialization
            // keeps the last where the product's JSONDecoder reads the first).
            if let object = FoundationJSON.strictObject(events.utf8), object.count == 2, let sub = object["sub"] as? String, object["type"] is String,
                !FoundationJSON.namesAMemberTwice(Array(events.utf8))
            {
                FuzzCheck.require(sub.isEmpty || sub.utf8.count > 255 || !StorableText.isStorable(sub), "refused a plain event: \(events)")
            }
        case .success(let event):
            Self.expectSameReading(of: event)
            // What the reference does not read (`FoundationJSON`) is not compared with it.
            guard let object else { return }
            Self.check(event, against: object)
        }
    }

    static func check(_ event: IdentityFuzzing.AppleEvent, against object: [String: Any]) {
        FuzzCheck.require(object["type"] as? String == event.type, "type \(event.type), Foundation \(String(describing: object["type"]))")
        FuzzCheck.require(object["sub"] as? String == event.subject, "sub \(event.subject), Foundation \(String(describing: object["sub"]))")
        FuzzCheck.require(
            !event.subject.isEmpty && event.subject.utf8.count <= 255 && StorableText.isStorable(event.subject),
            "accepted a subject that cannot be stored: \(event.subject.debugDescription)")
        FuzzCheck.require(Self.labels.contains(event.label), "label \(event.label)")
        FuzzCheck.require(event.email == object["email"] as? String, "email \(String(describing: event.email)), Foundation \(String(describing: object["email"]))")
        if let text = object["is_private_email"] as? String {
            FuzzCheck.require(event.isPrivateEmail == (text.lowercased() == "true"), "is_private_email \(text) read as \(String(describing: event.isPrivateEmail))")
        }
        let eventTime: Any = object["event_time"] ?? NSNull()
        switch eventTime {
        case let text as String:
            FuzzCheck.require(event.eventTime == Int64(text), "event_time \(text) read as \(String(describing: event.eventTime))")
        case let number as NSNumber where number.doubleValue.rounded() == number.doubleValue && abs(number.doubleValue) < 1e15:
            FuzzCheck.require(event.eventTime == number.int64Value, "event_time \(number) read as \(String(describing: event.eventTime))")
        default:
            break
        }
    }

    /// The event written out as Apple would, read again.
    static func expectSameReading(of event: IdentityFuzzing.AppleEvent) {
        var object: [String: Any] = ["type": event.type, "sub": event.subject]
        object["email"] = event.email
        object["is_private_email"] = event.isPrivateEmail
        object["event_time"] = event.eventTime
        guard let data = try? JSONSerialization.data(withJSONObject: object) else {
            FuzzCheck.require(false, "cannot write \(event)")
            return
        }
        let again = IdentityFuzzing.appleEvent(String(decoding: data, as: UTF8.self))
        FuzzCheck.require((try? again.get()) == event, "\(event) written out reads as \(again)")
    }
}
