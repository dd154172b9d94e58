import CompactJSON
import FoundationEssentials
import ServiceProtocol

extension TokenPair {
    /// The JSON the RPC encoder writes for the pair (members in declaration order, ids in upper
    /// case; none of its strings holds a `/`, which the encoder would escape), written by hand:
    /// `tokens` answers every sign-in and refresh with it and seals the same bytes as a
    /// rotation's successor.
    public var json: RawJSON {
        var json = RawJSON(capacity: 768)
        json.append(#"{"access_token":"#)
        json.append(string: self.accessToken)
        json.append(#","token_type":"#)
        json.append(string: self.tokenType)
        json.append(#","expires_in":"#)
        json.append(integer: Int64(self.expiresIn))
        json.append(#","expires_at":"#)
        json.append(string: self.expiresAt)
        json.append(#","refresh_token":"#)
        json.append(string: self.refreshToken)
        json.append(#","refresh_expires_at":"#)
        json.append(string: self.refreshExpiresAt)
        json.append(#","session_id":"#)
        json.append(uppercaseUUID: self.sessionID)
        json.append(#","user_id":"#)
        json.append(uppercaseUUID: self.userID)
        json.append(#","is_admin":"#)
        json.append(bool: self.isAdmin)
        json.append("}")
        return json
    }
}

/// The gateway reads the pair of every sign-in and refresh straight from the bytes `tokens`
/// sends, where `Decodable` built a tree of nodes and a keyed container for nine members. Any
/// other spelling (a `null`, a fraction, a missing or repeated member) is left to `Decodable`,
/// which answers it.
extension TokenPair: CompactJSONReadable {
    public init(reading parser: inout CompactJSONParser) throws {
        var accessToken: String?
        var tokenType: String?
        var expiresIn: Int?
        var expiresAt: String?
        var refreshToken: String?
        var refreshExpiresAt: String?
        var sessionID: UUID?
        var userID: UUID?
        var isAdmin: Bool?
        try parser.readObject { key, parser in
            switch key {
            case CodingKeys.accessToken.stringValue: accessToken = try parser.readString()
            case CodingKeys.tokenType.stringValue: tokenType = try parser.readString()
            case CodingKeys.expiresIn.stringValue: expiresIn = try parser.readInteger()
            case CodingKeys.expiresAt.stringValue: expiresAt = try parser.readString()
            case CodingKeys.refreshToken.stringValue: refreshToken = try parser.readString()
            case CodingKeys.refreshExpiresAt.stringValue: refreshExpiresAt = try parser.readString()
            case CodingKeys.sessionID.stringValue: sessionID = try parser.readUUID()
            case CodingKeys.userID.stringValue: userID = try parser.readUUID()
            case CodingKeys.isAdmin.stringValue: isAdmin = try parser.readBool()
            default: try parser.skipValue()
            }
        }
        guard let accessToken, let tokenType, let expiresIn, let expiresAt, let refreshToken, let refreshExpiresAt, let sessionID,
            let userID, let isAdmin
        else { throw CompactJSON.Unsupported() }
        self.init(
            accessToken: accessToken, tokenType: tokenType, expiresIn: expiresIn, expiresAt: expiresAt, refreshToken: refreshToken,
            refreshExpiresAt: refreshExpiresAt, sessionID: sessionID, userID: userID, isAdmin: isAdmin)
    }
}
