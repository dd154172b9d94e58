import CompactJSON
import Foundation
import TextCoding

/// A sign-in's session to open, sent by the gateway and read by `tokens` on every sign-in:
/// written and read by hand. Any other spelling is left to `Codable`, which answers it.
extension IssueParams: CompactJSONReadable, CompactJSONWritable {
    public init(reading parser: inout CompactJSONParser) throws {
        var userID: UUID?
        var isAdmin: Bool?
        var deviceName: String?
        var dpopJKT: String?
        try parser.readObject { key, parser in
            switch key {
            case CodingKeys.userID.stringValue: userID = try parser.readUUID()
            case CodingKeys.isAdmin.stringValue: isAdmin = try parser.readNull() ? nil : parser.readBool()
            case CodingKeys.deviceName.stringValue: deviceName = try parser.readStringOrNull()
            case CodingKeys.dpopJKT.stringValue: dpopJKT = try parser.readStringOrNull()
            default: try parser.skipValue()
            }
        }
        guard let userID else { throw CompactJSON.Unsupported() }
        self.init(userID: userID, isAdmin: false, deviceName: deviceName, dpopJKT: dpopJKT)
        self.isAdmin = isAdmin
    }

    /// The members the synthesized `encode(to:)` writes, in its order, the absent ones left out
    /// and the user's id in upper case, as the encoder writes a `UUID`.
    public func write(to json: inout JSONBytes, escapingSlashes: Bool) {
        json.write(#"{"user_id":"#)
        self.userID.appendUppercaseJSONString(to: &json)
        if let isAdmin = self.isAdmin {
            json.write(#","is_admin":"#)
            json.write(bool: isAdmin)
        }
        if let deviceName = self.deviceName {
            json.write(#","device_name":"#)
            JSONString.write(deviceName, escapingSlashes: escapingSlashes, to: &json)
        }
        if let dpopJKT = self.dpopJKT {
            json.write(#","dpop_jkt":"#)
            JSONString.write(dpopJKT, escapingSlashes: escapingSlashes, to: &json)
        }
        json.write("}")
    }
}
