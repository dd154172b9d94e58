import NIOCore
import Testing

@testable import Gateway

/// A sign-in's or guest's `device_name`: at most 100 characters, as openapi.yaml says (the
/// guest route once answered 200 to a longer one; schemathesis found it).
@Suite struct DeviceNameTests {
    func deviceName(_ text: String) throws -> String? {
        try AuthRoutes.deviceName(JSONBody.object(ByteBuffer(string: text)))
    }

    @Test func upToAHundredCharactersAndNoMore() throws {
        #expect(try self.deviceName("{}") == nil)
        #expect(try self.deviceName(#"{"device_name":"Ada's iPhone"}"#) == "Ada's iPhone")
        let hundred = String(repeating: "é", count: 100)
        #expect(try self.deviceName(#"{"device_name":"\#(hundred)"}"#) == hundred)
        // Counted in characters (Unicode scalars), not bytes: 100 two-byte ones pass, 101 do not.
        let refused = #expect(throws: APIError.self) { try self.deviceName(#"{"device_name":"\#(hundred)x"}"#) }
        #expect(refused?.code == .badRequest)
        #expect(throws: APIError.self) { try self.deviceName(#"{"device_name":5}"#) }
    }
}
