import CompactJSON
import FoundationEssentials
import TextCoding

/// A sign-in's session to open, sent by the gateway and read by `tokens` on every sign-in:
/// written and read by hand. Any other spelling is left to `Codable`, which answers it.
extension IssueParams: CompactJSONReadable, CompactJSONWritable {
    public init(reading parser: inout CompactJSONParser) throws {
        var userID: UUID?
        var isAdmin: Bool?
        var deviceName: String?
        var dpopJKT: String?
        var signIn: SignInFacts?
        try parser.readObject { key, parser in
            switch key {
            case CodingKeys.userID.stringValue: userID = try parser.readUUID()
            case CodingKeys.isAdmin.stringValue: isAdmin = try parser.readNull() ? nil : parser.readBool()
            case CodingKeys.deviceName.stringValue: deviceName = try parser.readStringOrNull()
            case CodingKeys.dpopJKT.stringValue: dpopJKT = try parser.readStringOrNull()
            case CodingKeys.signIn.stringValue: signIn = try parser.readNull() ? nil : SignInFacts(reading: &parser)
            default: try parser.skipValue()
            }
        }
        guard let userID else { throw CompactJSON.Unsupported() }
        self.init(userID: userID, isAdmin: false, deviceName: deviceName, dpopJKT: dpopJKT, signIn: signIn)
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
        if let signIn = self.signIn {
            json.write(#","sign_in":{"provider":"#)
            JSONString.write(signIn.provider, escapingSlashes: escapingSlashes, to: &json)
            json.write(#","new_user":"#)
            json.write(bool: signIn.newUser)
            json.write("}")
        }
        json.write("}")
    }
}

extension SignInFacts {
    /// `{"provider","new_user"}`, read by hand with the params around it.
    init(reading parser: inout CompactJSONParser) throws {
        var provider: String?
        var newUser: Bool?
        try parser.readObject { key, parser in
            switch key {
            case CodingKeys.provider.stringValue: provider = try parser.readString()
            case CodingKeys.newUser.stringValue: newUser = try parser.readBool()
            default: try parser.skipValue()
            }
        }
        guard let provider, let newUser else { throw CompactJSON.Unsupported() }
        self.init(provider: provider, newUser: newUser)
    }
}
