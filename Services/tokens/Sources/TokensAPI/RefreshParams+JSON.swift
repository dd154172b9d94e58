import CompactJSON
import TextCoding

/// A refresh's params, sent by the gateway and read by `tokens` on every refresh: written and
/// read by hand, one string each way. Any other spelling is left to `Codable`.
extension RefreshParams: CompactJSONReadable, CompactJSONWritable {
    public init(reading parser: inout CompactJSONParser) throws {
        var refreshToken: String?
        try parser.readObject { key, parser in
            if key == CodingKeys.refreshToken.stringValue {
                refreshToken = try parser.readString()
            } else {
                try parser.skipValue()
            }
        }
        guard let refreshToken else { throw CompactJSON.Unsupported() }
        self.init(refreshToken: refreshToken)
    }

    /// `{"refresh_token":"…"}`, as `encode(to:)` writes it.
    public func write(to json: inout JSONBytes, escapingSlashes: Bool) {
        json.write(#"{"refresh_token":"#)
        JSONString.write(self.refreshToken, escapingSlashes: escapingSlashes, to: &json)
        json.write("}")
    }
}
