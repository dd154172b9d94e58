import Foundation
import NIOCore
import NIOFoundationEssentialsCompat
import Testing

@testable import ServiceProtocol

@Suite struct EnvelopeTests {
    private func members(_ json: String) throws -> [String: String] {
        let bytes = Array(json.utf8)
        var result: [String: String] = [:]
        try bytes.withUnsafeBytes { raw in
            try JSONObjectScanner.forEachMember(of: raw) { key, value in
                result[String(decoding: raw[key], as: UTF8.self)] = String(decoding: raw[value], as: UTF8.self)
            }
        }
        return result
    }

    @Test func scannerFindsTopLevelMembersAndSkipsNestedValues() throws {
        let json = #" {"v":1, "id" : 7,"params":{"a":"}{\"][","b":[1,{"c":null}],"d":true},"method":"x.y","n":-1.5e3,"f":false} "#
        let found = try self.members(json)
        #expect(found["id"] == "7")
        #expect(found["method"] == #""x.y""#)
        #expect(found["params"] == #"{"a":"}{\"][","b":[1,{"c":null}],"d":true}"#)
        #expect(found["n"] == "-1.5e3")
        #expect(found["f"] == "false")
        #expect(try self.members("{}").isEmpty)
    }

    @Test(arguments: [
        "", "[]", "{", #"{"a":1"#, #"{"a":1}x"#, #"{"a" 1}"#, #"{"a":}"#, #"{"a":tru}"#, #"{"a":"x}"#,
        #"{"a":[1,2}"#, #"{"a":{"b":1]}"#, "{\"a\":\"line\nbreak\"}", #"{"a":1,}"#, #"{a:1}"#,
    ])
    func scannerRejectsMalformedObjects(_ json: String) {
        #expect(throws: JSONObjectScanner.Malformed.self) { try self.members(json) }
    }

    @Test func stringsEndAndEscapeAtEveryOffsetOfAWord() throws {
        // The scanner passes over eight bytes of a string at a time: a quote, backslash or
        // control character anywhere among them must still be seen.
        let cases: [(inside: String, valid: Bool)] = [
            (#"\""#, true), (#"\\"#, true), (#"\u0041"#, true), ("\n", false), ("\u{1F}", false), ("\u{7F}", true), ("✓", true),
        ]
        for offset in 0..<20 {
            let pad = String(repeating: "é", count: offset / 2) + String(repeating: "a", count: offset % 2)
            let tail = String(repeating: "z", count: 19 - offset)
            for (inside, valid) in cases {
                let text = "\"" + pad + inside + tail + "\""
                let json = #"{"a":"# + text + #","b":[{"c":"x"}]}"#
                if valid {
                    let found = try self.members(json)
                    #expect(found["a"] == text)
                    #expect(found["b"] == #"[{"c":"x"}]"#)
                } else {
                    #expect(throws: JSONObjectScanner.Malformed.self, "\(offset) \(inside.debugDescription)") { try self.members(json) }
                }
            }
            // A string that ends at that offset, followed by another member.
            let found = try self.members(#"{"a":"# + "\"" + pad + "\"" + #","b":1}"#)
            #expect(found["a"] == "\"" + pad + "\"")
            #expect(found["b"] == "1")
        }
        #expect(JSONObjectScanner.endOrEscapeFlags(0x2020_2020_2020_2020) == 0)
        #expect(JSONObjectScanner.endOrEscapeFlags(0xFFFF_FFFF_FFFF_FFFF) == 0)
        #expect(JSONObjectScanner.endOrEscapeFlags(0x7E7E_7E7E_7E7E_7E22) != 0)
        #expect(JSONObjectScanner.endOrEscapeFlags(0x5C7E_7E7E_7E7E_7E7E) != 0)
        #expect(JSONObjectScanner.endOrEscapeFlags(0x7E7E_7E1F_7E7E_7E7E) != 0)
    }

    @Test func theLowestFlagOfAWordIsItsFirstQuoteBackslashOrControl() {
        // A borrow may flag a byte above a true one (0x01 over 0x00), never one below: the
        // scanner jumps to the lowest flag, so it must be the first byte that ends or escapes.
        for position in 0..<8 {
            for special: UInt8 in [0x22, 0x5C, 0x00, 0x01, 0x1F] {
                for filler: UInt8 in [0x20, 0x21, 0x23, 0x5B, 0x5D, 0x7F, 0x80, 0xFF, 0x01, 0x22] {
                    var bytes = [UInt8](repeating: 0x61, count: 8)
                    bytes[position] = special
                    for above in (position + 1)..<8 { bytes[above] = filler }
                    let word = bytes.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
                    let flags = JSONObjectScanner.endOrEscapeFlags(word)
                    #expect(flags.trailingZeroBitCount >> 3 == position, "\(bytes)")
                }
            }
        }
        for plain: UInt8 in [0x20, 0x21, 0x23, 0x5B, 0x5D, 0x7F, 0x80, 0xC3, 0xFF] {
            #expect(JSONObjectScanner.endOrEscapeFlags(UInt64(plain) &* 0x0101_0101_0101_0101) == 0)
        }
    }

    @Test func bracketsAreMatchedBeyondSixtyFourLevels() throws {
        for depth in [1, 63, 64, 65, 200] {
            let nested = String(repeating: #"{"k":["#, count: depth) + "1" + String(repeating: "]}", count: depth)
            #expect(try self.members(#"{"a":"# + nested + #","b":2}"#)["a"] == nested)
            // One bracket pair swapped at the deepest level, and at the outermost.
            let innerSwap = String(repeating: #"{"k":["#, count: depth) + "1}]" + String(repeating: "]}", count: depth - 1)
            let outerSwap = String(repeating: #"{"k":["#, count: depth) + "1" + String(repeating: "]}", count: depth - 1) + "}]"
            for wrong in [innerSwap, outerSwap] {
                #expect(throws: JSONObjectScanner.Malformed.self) { try self.members(#"{"a":"# + wrong + "}") }
            }
        }
    }

    @Test func requestFieldsAreReadAndParamsKeptAsBytes() throws {
        let frame = ByteBuffer(string: #"{"v":1,"id":18446744073709551615,"method":"a\u002eb","request_id":"r\"1","params":{"x":1}}"#)
        let request = try IncomingRequest(frame)
        #expect(request.id == UInt64.max)
        #expect(request.method == "a.b")
        #expect(request.requestID == #"r"1"#)
        #expect(request.params.map { String(buffer: $0) } == #"{"x":1}"#)
        #expect(try IncomingRequest(ByteBuffer(string: #"{"id":2,"method":"m","params":null}"#)).params == nil)
    }

    @Test func invalidRequestsKeepTheirIDWhenReadable() {
        do {
            _ = try IncomingRequest(ByteBuffer(string: #"{"id":9,"method":5}"#))
            Issue.record("expected an error")
        } catch {
            #expect(error.id == 9)
            #expect(error.message.contains("method"))
        }
        do {
            _ = try IncomingRequest(ByteBuffer(string: #"{"id":99999999999999999999,"method":"m"}"#))
            Issue.record("expected an error")
        } catch {
            #expect(error.id == 0)
        }
    }

    /// A known member twice or a member name written with escapes is refused (a full JSON
    /// parser could read either another way); unknown members are skipped; a malformed frame is
    /// malformed whatever its members.
    @Test(arguments: [
        (#"{"id":1,"method":"m","id":2}"#, "Duplicate member id"),
        (#"{"id":1,"method":"m","deadline_ms":5,"deadline_ms":6}"#, "Duplicate member deadline_ms"),
        (#"{"id":1,"method":"m","i\u0064":2}"#, "Escaped member name"),
        (#"{"id":1,"method":"m","x\"y":2}"#, "Escaped member name"),
        (#"{"id":1,"i\u0064":2,"method":"m",}"#, "Malformed JSON"),
        (#"{"id":1,"method":"m","params":{"id":1},"idx":3,"ids":"x","id":1}"#, "Duplicate member id"),
    ])
    func envelopesWithAmbiguousMembersAreRefused(_ frame: String, _ message: String) {
        do {
            _ = try IncomingRequest(ByteBuffer(string: frame))
            Issue.record("expected an error for \(frame)")
        } catch {
            #expect(error.message == "Malformed request: \(message)", "\(frame)")
        }
    }

    @Test func unknownMembersAndNestedKnownNamesAreSkipped() throws {
        let request = try IncomingRequest(
            ByteBuffer(string: #"{"idx":3,"ids":"x","params":{"id":7,"method":"n"},"id":4,"method":"m","resul":1,"v":1}"#))
        #expect(request.id == 4)
        #expect(request.method == "m")
        #expect(request.v == 1)
        #expect(request.deadlineMs == nil)
        #expect(request.params.map { String(buffer: $0) } == #"{"id":7,"method":"n"}"#)
    }

    @Test(arguments: ["plain", "quote\"back\\slash", "new\nline\ttab\u{1}", "ünïcødé ✓"])
    func writtenEnvelopesAreValidJSONWithEscapedStrings(_ text: String) throws {
        let frame = EnvelopeWriter.request(id: 3, method: "m", params: Data(#"{"k":[1]}"#.utf8), deadlineMs: 10, requestID: text)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(buffer: frame)) as? [String: Any])
        #expect(object["request_id"] as? String == text)
        #expect(object["id"] as? Int == 3)
        #expect(object["deadline_ms"] as? Int == 10)
        #expect((object["params"] as? [String: [Int]]) == ["k": [1]])
        let request = try IncomingRequest(frame)
        #expect(request.requestID == text)
    }
}
