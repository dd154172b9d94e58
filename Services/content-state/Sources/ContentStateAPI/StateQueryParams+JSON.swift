import CompactJSON
import FoundationEssentials
import TextCoding

/// A state query's params are the largest the gateway sends on a busy path (up to `MAX_BATCH`
/// ids): written and read by hand, each id copied once, where `Codable` went through a
/// container and a tree node per id. Any other spelling of the params (escapes are fine; a
/// `null`, a number or a missing member is not) is left to `Codable`, which answers it.
extension StateQueryParams: CompactJSONReadable, CompactJSONWritable {
    public init(reading parser: inout CompactJSONParser) throws {
        var userID: UUID?
        var itemIDs: [String]?
        try parser.readObject { key, parser in
            switch key {
            case CodingKeys.userID.stringValue:
                userID = try parser.readUUID()
            case CodingKeys.itemIDs.stringValue:
                itemIDs = try parser.readStringArray()
            default:
                try parser.skipValue()
            }
        }
        guard let userID, let itemIDs else { throw CompactJSON.Unsupported() }
        self.init(userID: userID, itemIDs: itemIDs)
    }

    /// `{"user_id":"…","item_ids":[…]}`, the members in `CodingKeys`' order as `encode(to:)`
    /// writes them.
    public func write(to json: inout JSONBytes, escapingSlashes: Bool) {
        json.write(#"{"user_id":"#)
        self.userID.appendUppercaseJSONString(to: &json)
        json.write(#","item_ids":["#)
        for (index, id) in self.itemIDs.enumerated() {
            if index > 0 { json.write(byte: UInt8(ascii: ",")) }
            JSONString.write(id, escapingSlashes: escapingSlashes, to: &json)
        }
        json.write("]}")
    }
}
