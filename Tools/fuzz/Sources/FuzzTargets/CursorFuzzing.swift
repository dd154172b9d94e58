import ContentStateService
import Foundation
import IdentityService
import ServiceProtocol
import TextCoding

/// A caller's list cursor, which clients and operators hand back as opaque text: the first
/// byte picks the list (content-state's favorites by time or position, read and unliked marks,
/// the changes feed; or identity's user list), the rest is the cursor; a rest that starts with
/// `{` is the JSON inside, encoded here first.
/// Properties: nothing traps; a refusal is content-state's `bad_request` for an invalid cursor;
/// what is accepted belongs to the list it was used for, can be run by that list's statement (a
/// time in years 1 to 9999, an item id without NUL, none for the changes feed), says what
/// Foundation reads in it (content-state's), and written out again reads the same.
enum CursorFuzzing {
    static let refusal = "cursor is not valid for this list"

    static func run(_ bytes: UnsafeRawBufferPointer) {
        guard let selector = bytes.first else { return }
        let rest = bytes.dropFirst()
        let text = rest.first == UInt8(ascii: "{") ? Base64URL.encode(rest) : String(decoding: rest, as: UTF8.self)
        let kinds = ContentStateFuzzing.kinds
        if Int(selector) % (kinds.count + 1) == kinds.count {
            Self.checkUserCursor(text)
        } else {
            Self.checkPageCursor(text, kind: kinds[Int(selector) % (kinds.count + 1)])
        }
    }

    static func checkPageCursor(_ text: String, kind: String) {
        let cursor: ContentStateFuzzing.Cursor
        switch ContentStateFuzzing.readCursor(text, as: kind) {
        case .failure(let error):
            FuzzCheck.require(error.code == .badRequest && error.message == Self.refusal, "refused with \(error)")
            return
        case .success(let read):
            cursor = read
        }
        FuzzCheck.require(cursor.kind == kind, "a cursor of \(cursor.kind) used for \(kind)")
        FuzzCheck.require((cursor.itemID == nil) == (kind == "c"), "item id \(String(describing: cursor.itemID)) in a cursor of \(kind)")
        FuzzCheck.require(!(cursor.itemID?.utf8.contains(0) ?? false), "an item id with NUL")
        if ContentStateFuzzing.timeKinds.contains(kind) {
            FuzzCheck.require(ContentStateFuzzing.timeKeys.contains(cursor.key), "time key \(cursor.key)")
        }
        // The reader takes item ids the service never stores (over 256 bytes, control characters,
        // which its JSON escapes at 6 bytes each), whose cursor written out can pass the 1,024-byte
        // limit; one of a stored id never does.
        let stored = cursor.itemID.map { $0.utf8.count <= 256 && !$0.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) } } ?? true
        if stored || cursor.encoded.utf8.count <= 1024 {
            let again = ContentStateFuzzing.readCursor(cursor.encoded, as: kind)
            FuzzCheck.require((try? again.get()) == cursor, "\(cursor) written out reads as \(again)")
        }
        // What the reference does not read (`FoundationJSON`) is not compared with it.
        guard let json = Base64URL.decode(text), let object = FoundationJSON.object(json) else { return }
        FuzzCheck.require(object["k"] as? String == kind, "kind \(kind), Foundation reads \(String(describing: object["k"]))")
        FuzzCheck.require((object["n"] as? NSNumber)?.int64Value == cursor.key, "key \(cursor.key), Foundation reads \(String(describing: object["n"]))")
        FuzzCheck.require(object["i"] as? String == cursor.itemID, "item id \(String(describing: cursor.itemID)), Foundation reads \(String(describing: object["i"]))")
    }

    static func checkUserCursor(_ text: String) {
        guard let cursor = IdentityFuzzing.userCursor(text) else { return }
        FuzzCheck.require(text.count <= 128, "accepted a cursor of \(text.count) characters")
        let again = IdentityFuzzing.userCursor(cursor.text)
        FuzzCheck.require(again?.createdMicros == cursor.createdMicros && again?.id == cursor.id, "\(cursor) written out as \(cursor.text) reads as \(String(describing: again))")
        FuzzCheck.require(again?.text == cursor.text, "a cursor written out twice differs")
    }
}
