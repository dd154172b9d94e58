import CompactJSON
import TextCoding

/// A sign-in's credential, sent by the gateway and read by identity on every sign-in: written
/// and read by hand (strings only). Any other spelling (`full_name` as Apple's components, a
/// `null`, a repeated member) is left to `Codable`, which answers it.
extension ProviderCredential: CompactJSONReadable, CompactJSONWritable {
    public init(reading parser: inout CompactJSONParser) throws {
        var provider: IdentityProvider?
        var identityToken: String?
        var idToken: String?
        var accessToken: String?
        var nonce: String?
        var fullName: String?
        var email: String?
        var authorizationCode: String?
        try parser.readObject { key, parser in
            switch key {
            case CodingKeys.provider.stringValue:
                guard let known = IdentityProvider(rawValue: try parser.readString()) else { throw CompactJSON.Unsupported() }
                provider = known
            case CodingKeys.identityToken.stringValue: identityToken = try parser.readString()
            case CodingKeys.idToken.stringValue: idToken = try parser.readString()
            case CodingKeys.accessToken.stringValue: accessToken = try parser.readString()
            case CodingKeys.nonce.stringValue: nonce = try parser.readString()
            case CodingKeys.fullName.stringValue: fullName = try parser.readString()
            case CodingKeys.email.stringValue: email = try parser.readString()
            case CodingKeys.authorizationCode.stringValue: authorizationCode = try parser.readString()
            default: try parser.skipValue()
            }
        }
        guard let provider else { throw CompactJSON.Unsupported() }
        self.init(
            provider: provider, identityToken: identityToken ?? idToken, accessToken: accessToken, nonce: nonce, fullName: fullName,
            email: email, authorizationCode: authorizationCode)
    }

    /// The members `encode(to:)` writes, in its order, the absent ones left out.
    public func write(to json: inout JSONBytes, escapingSlashes: Bool) {
        json.write(#"{"provider":"#)
        JSONString.write(self.provider.rawValue, escapingSlashes: escapingSlashes, to: &json)
        Self.write(#","identity_token":"#, self.identityToken, escapingSlashes: escapingSlashes, to: &json)
        Self.write(#","access_token":"#, self.accessToken, escapingSlashes: escapingSlashes, to: &json)
        Self.write(#","nonce":"#, self.nonce, escapingSlashes: escapingSlashes, to: &json)
        Self.write(#","full_name":"#, self.fullName, escapingSlashes: escapingSlashes, to: &json)
        Self.write(#","email":"#, self.email, escapingSlashes: escapingSlashes, to: &json)
        Self.write(#","authorization_code":"#, self.authorizationCode, escapingSlashes: escapingSlashes, to: &json)
        json.write("}")
    }

    private static func write(_ member: StaticString, _ value: String?, escapingSlashes: Bool, to json: inout JSONBytes) {
        guard let value else { return }
        json.write(member)
        JSONString.write(value, escapingSlashes: escapingSlashes, to: &json)
    }
}
