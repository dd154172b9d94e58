import CompactJSON
import Foundation
import ServiceProtocol
import Testing

/// Expects the RPC layer (its compact decoder first, a type's own reader before that) to read
/// `text` as Foundation's `JSONDecoder` does: the same value, or an error described the same
/// way under `root` (`params` or `result`).
public func expectReadAsJSONDecoderReads<T: Decodable & Equatable>(
    _ type: T.Type, _ text: String, root: String, sourceLocation: SourceLocation = #_sourceLocation
) {
    let reference = Result { try JSONDecoder().decode(T.self, from: Data(text.utf8)) }
    let ours = Result { try RPCJSON.decode(T.self, from: Data(text.utf8)) }
    switch (reference, ours) {
    case (.success(let expected), .success(let value)):
        #expect(value == expected, "\(text)", sourceLocation: sourceLocation)
    case (.failure(let expected), .failure(let error)):
        #expect(
            RPCJSON.describe(decodingError: error, root: root) == RPCJSON.describe(decodingError: expected, root: root), "\(text)",
            sourceLocation: sourceLocation)
    default:
        Issue.record("\(text): JSONDecoder gave \(reference), the RPC layer \(ours)", sourceLocation: sourceLocation)
    }
}

/// `bytes` read by `T`'s own reader (`CompactJSONReadable`) as the whole document: it throws
/// where the reader refuses, or where anything but whitespace follows what it read.
public func readWhole<T: CompactJSONReadable>(_ type: T.Type, _ bytes: [UInt8]) throws -> T {
    try bytes.withUnsafeBytes { try CompactJSONDecoder.readWhole(T.self, from: $0) }
}

/// The bytes the compact encoder writes for `value` through its `Encodable` conformance,
/// even where the type writes itself (`CompactJSONWritable`): what a hand-written writer must
/// match.
public func bytesThroughEncodable<T: Encodable>(_ value: T, escapingSlashes: Bool) throws -> [UInt8] {
    try CompactJSONEncoder.encode(ThroughEncodable(value: value), escapingSlashes: escapingSlashes)
}

/// A value that encodes as `value` does, without being `CompactJSONWritable` itself.
private struct ThroughEncodable<Value: Encodable>: Encodable {
    var value: Value

    func encode(to encoder: any Encoder) throws {
        try self.value.encode(to: encoder)
    }
}
