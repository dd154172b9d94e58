import Foundation
import Testing
import TextCoding

/// `UUID(text:)` reads the ids `UUID(uuidString:)` reads, without its `sscanf`, and nothing but
/// `8-4-4-4-12` hexadecimal digits: Foundation's `sscanf` also takes a sign, `0x`, a leading space
/// or a NUL inside some fields, which `UUID(text:)` refuses (the JSON decoder then leaves such a
/// value to Foundation; Postgres always prints the canonical form).
@Suite struct UUIDTextTests {
    @Test func idsInEitherCaseReadAsFoundationReadsThem() {
        for _ in 0..<200 {
            let id = UUID.random()
            #expect(UUID(text: id.uuidString) == id)
            #expect(UUID(text: id.uuidString.lowercased()) == id)
        }
        #expect(UUID(text: "00000000-0000-0000-0000-000000000000") == UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
        #expect(UUID(text: "FfFfFfFf-ffff-FFFF-ffff-ffffffffffff") == UUID(uuidString: "ffffffff-ffff-ffff-ffff-ffffffffffff"))
    }

    @Test func idsAreSpelledAsFoundationSpellsThem() {
        var ids = (0..<200).map { _ in UUID.random() }
        ids.append(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
        ids.append(UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255)))
        ids.append(UUID(uuidString: "6BA7B810-9DAD-11D1-80B4-00C04FD430C8")!)
        for id in ids {
            #expect(id.lowercasedText == id.uuidString.lowercased())
            var bytes = [UInt8](repeating: 0, count: 40)
            let written = bytes.withUnsafeMutableBufferPointer { id.writeUppercaseText(into: $0) }
            #expect(written == 36)
            #expect(Array(bytes[..<36]) == Array(id.uuidString.utf8))
            #expect(bytes[36...].allSatisfy { $0 == 0 }, "nothing past the 36 bytes")
            var json = Array("[".utf8)
            id.appendUppercaseJSONString(to: &json)
            #expect(json == Array("[\"\(id.uuidString)\"".utf8))
            var jsonBytes = JSONBytes(capacity: 1)
            id.appendUppercaseJSONString(to: &jsonBytes)
            #expect(jsonBytes.array == Array("\"\(id.uuidString)\"".utf8))
        }
    }

    @Test(arguments: [
        "", "0", "6ba7b810-9dad-11d1-80b4-00c04fd430c", "6ba7b810-9dad-11d1-80b4-00c04fd430c88",
        "6ba7b8109dad11d180b400c04fd430c8", "6ba7b810-9dad-11d1-80b4_00c04fd430c8", "6ba7b81-09dad-11d1-80b4-00c04fd430c8",
        "6ba7b810-9dad-11d1-80b4-00c04fd430cg", " 6ba7b810-9dad-11d1-80b4-00c04fd430c", "{6ba7b810-9dad-11d1-80b4-00c04fd430c8}",
        "+ba7b810-9dad-11d1-80b4-00c04fd430c8", "0xa7b810-9dad-11d1-80b4-00c04fd430c8", "6ba7b810-9dad-11d1-80b4-00c04fd430é",
        "6ba7b810-9dad-11d1-80b4-00c04fd430c8\0",
    ])
    func anythingElseIsRefused(_ text: String) {
        #expect(UUID(text: text) == nil)
    }
}
