import CompactJSON
import Foundation
import TestSupport
import Testing
import TextCoding
import TokensAPI

/// `IssueParams` (a sign-in's session to open) writes and reads its JSON by hand: the bytes
/// `Codable` writes, and from any spelling the value or the error `JSONDecoder` gives.
@Suite struct IssueParamsJSONTests {
    static func samples() -> [IssueParams] {
        var unsaid = IssueParams(userID: UUID())
        unsaid.isAdmin = nil
        return [
            IssueParams(userID: UUID()), IssueParams(userID: UUID(), isAdmin: true, deviceName: "Ann's iPhone"),
            IssueParams(userID: UUID(), deviceName: "a/b \"c\" \\ \t café😀"), IssueParams(userID: UUID(), deviceName: ""), unsaid,
            IssueParams(userID: UUID(), deviceName: "phone", dpopJKT: "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"),
        ]
    }

    @Test func writesTheBytesCodableWritesAndReadsThemBack() throws {
        for params in Self.samples() {
            for escapingSlashes in [true, false] {
                var json = JSONBytes()
                params.write(to: &json, escapingSlashes: escapingSlashes)
                #expect(json.array == (try bytesThroughEncodable(params, escapingSlashes: escapingSlashes)))
                #expect(try readWhole(IssueParams.self, json.array) == params)
                expectReadAsJSONDecoderReads(IssueParams.self, String(decoding: json.array, as: UTF8.self), root: "params")
            }
        }
    }

    @Test(arguments: [
        #"{"user_id":"f2b0e8b4-3c41-4d8a-9c2e-6b1d1a7e9f10"}"#,
        #" { "device_name" : "d\/\u0041", "is_admin" : null, "user_id" : "F2B0E8B4-3C41-4D8A-9C2E-6B1D1A7E9F10", "x": [1, {}] } "#,
        #"{"user_id":"F2B0E8B4-3C41-4D8A-9C2E-6B1D1A7E9F10","device_name":null,"is_admin":false}"#,
        #"{"user_id":"F2B0E8B4-3C41-4D8A-9C2E-6B1D1A7E9F10","is_admin":1}"#,
        #"{"user_id":"F2B0E8B4-3C41-4D8A-9C2E-6B1D1A7E9F10","device_name":7}"#,
        #"{"user_id":"F2B0E8B4-3C41-4D8A-9C2E-6B1D1A7E9F1X"}"#, #"{"user_id":null}"#, #"{"is_admin":true}"#, #"[]"#,
        #"{"user_id":"F2B0E8B4-3C41-4D8A-9C2E-6B1D1A7E9F10","user_id":"F2B0E8B4-3C41-4D8A-9C2E-6B1D1A7E9F10"}"#,
        #"{"user_id":"F2B0E8B4-3C41-4D8A-9C2E-6B1D1A7E9F10"} x"#,
    ])
    func readsAsJSONDecoderDoes(_ text: String) {
        if let value = try? readWhole(IssueParams.self, Array(text.utf8)) {
            #expect(value == (try? JSONDecoder().decode(IssueParams.self, from: Data(text.utf8))), "\(text)")
        }
        expectReadAsJSONDecoderReads(IssueParams.self, text, root: "params")
    }
}
