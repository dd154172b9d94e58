import Foundation
import Logging
import NIOCore
import NIOFoundationEssentialsCompat
import Testing
import TextCoding

@testable import ServiceProtocol

/// Hand-written results: strings escaped as JSON demands, the bytes placed in the envelope as
/// they are, and errors of a raw handler mapped like any other.
@Suite struct RawJSONTests {
    static let awkwardStrings = [
        "", "plain", #"quote " and backslash \"#, "line\nbreak\ttab\r\u{0}\u{1f}", "slash / stays",
        "naïve café ✓ 🦊", "\u{7f}del", #"\u0041 stays text"#,
    ]

    @Test(arguments: awkwardStrings)
    func stringsAreEscapedSoAnyParserReadsThemBack(_ text: String) throws {
        var json = RawJSON()
        json.append("[")
        json.append(string: text)
        json.append(",")
        json.append(string: nil as String?)
        json.append(",")
        json.append(integer: -42)
        json.append(",")
        json.append(integer: nil as Int64?)
        json.append(",")
        json.append(bool: true)
        json.append("]")
        let parsed = try JSONSerialization.jsonObject(with: Data(buffer: json.bytes), options: [.fragmentsAllowed]) as? [Any]
        #expect(parsed?[0] as? String == text)
        #expect(parsed?[1] is NSNull)
        #expect((parsed?[2] as? NSNumber)?.intValue == -42)
        #expect(parsed?[3] is NSNull)
        #expect(parsed?[4] as? Bool == true)
    }

    /// Times are written into the buffer as `RFC3339Milliseconds.format` writes them, at any
    /// place in a buffer that grows as they are written.
    @Test func timesAreWrittenAsTheRFC3339TextOfTheirMilliseconds() throws {
        let times: [Int64?] = [0, 1_795_317_839_123, -1, nil, 951_782_400_001, 253_402_300_799_999]
        var json = RawJSON(capacity: 1)
        json.append("[")
        for (index, time) in times.enumerated() {
            if index > 0 { json.append(",") }
            json.append(rfc3339Milliseconds: time)
        }
        json.append("]")
        let expected = "[" + times.map { $0.map { "\"\(RFC3339Milliseconds.format($0))\"" } ?? "null" }.joined(separator: ",") + "]"
        #expect(String(buffer: json.bytes) == expected)
        #expect(expected.hasPrefix(#"["1970-01-01T00:00:00.000Z","2026-11-22T03:23:59.123Z","1969-12-31T23:59:59.999Z",null"#))
    }

    @Test func aRawHandlerResultArrivesAsWrittenAndItsErrorsMapToTheCatalogue() async throws {
        var router = RPCRouter()
        router.registerRaw("test.raw") { (params: Echo, _) -> RawJSON in
            guard params.value >= 0 else { throw RPCError.notFound("No such value") }
            var json = RawJSON()
            json.append(#"{"value":"#)
            json.append(integer: Int64(params.value))
            json.append(#","text":"#)
            json.append(string: "a \"b\"")
            json.append("}")
            return json
        }
        try await withServer(router: router) { server in
            try await RPCClient.withClient(configuration: clientConfiguration(ports: [server.port]), logger: .init(label: "t")) { client in
                let raw = try await client.callJSON("test.raw", params: Data(#"{"value":7}"#.utf8))
                #expect(raw.getString(at: raw.readerIndex, length: raw.readableBytes) == #"{"value":7,"text":"a \"b\""}"#)
                let missing = await #expect(throws: RPCError.self) {
                    try await client.callJSON("test.raw", params: Data(#"{"value":-1}"#.utf8))
                }
                #expect(missing?.code == .notFound)
                let malformed = await #expect(throws: RPCError.self) {
                    try await client.callJSON("test.raw", params: Data(#"{"value":"x"}"#.utf8))
                }
                #expect(malformed?.code == .badRequest)
            }
        }
    }
}
