import CompactJSON
import TextCoding

/// A refresh's params, sent by the gateway and read by `tokens` on every refresh: written and
/// read by hand, one string each way. Any other spelling is left to `Codable`.
extension RefreshParams: CompactJSONReadable, CompactJSONWritable {
    public init(reading parser: inout CompactJSONParser) throws {
        var refreshToken: String?
        var dpopJKT: String?
        try parser.readObject { key, parser in
            switch key {
            case CodingKeys.refreshToken.stringValue: refreshToken = try parser.readString()
            case CodingKeys.dpopJKT.stringValue: dpopJKT = try parser.readStringOrNull()
            default: try parser.skipValue()
            }
        }
        guard let refreshToken else { throw CompactJSON.Unsupported() }
        self.init(refreshToken: refreshToken, dpopJKT: dpopJKT)
    }

    /// `{"refresh_token":"…"}` (with `"dpop_jkt"` when there is one), as `encode(to:)` writes it.
    public func write(to json: inout JSONBytes, escapingSlashes: Bool) {
        json.write(#"{"refresh_token":"#)
        JSONString.write(self.refreshToken, escapingSlashes: escapingSlashes, to: &json)
        if let dpopJKT = self.dpopJKT {
            json.write(#","dpop_jkt":"#)
            JSONString.write(dpopJKT, escapingSlashes: escapingSlashes, to: &json)
        }
        json.write("}")
    }
}
