import TextCoding

/// A type that reads its JSON straight from the bytes, for the params of the busiest calls (a
/// state query's fifty ids): `CompactJSONDecoder` asks it first, before building a tree of
/// nodes and walking it through `Decodable`. Whatever it throws on (another spelling of the
/// same value, a wrong type, a missing member) goes the `Decodable` way, which then gives the
/// value or the error; so a reader needs only handle the spelling it is usually sent, and must
/// never return a value that `init(from:)` would not give for the same bytes.
public protocol CompactJSONReadable: Decodable {
    init(reading parser: inout CompactJSONParser) throws
}

/// A type that writes its JSON by hand: `CompactJSONEncoder` calls `write(to:escapingSlashes:)`
/// instead of going through `Encodable`. It must write exactly the bytes `encode(to:)` gives
/// through the compact encoder (members in the same order, strings escaped by `JSONString`).
public protocol CompactJSONWritable: Encodable {
    func write(to json: inout JSONBytes, escapingSlashes: Bool)
}
