import Foundation

/// Foundation's reading of a document the product reads with `JSONDecoder`, as plain values
/// (`String`, `NSNumber`, `Bool`, `NSNull`, arrays, `[String: Any]`): `JSONDecoder` itself, into
/// a value of no particular shape, so it reads duplicate members and the text of strings as the
/// product's `Decodable` types do (`JSONSerialization` keeps the last of two members with one name
/// where `JSONDecoder` keeps the first, and refuses raw control characters `JSONDecoder` lets pass
/// in a value it skips). A target compares what the product read with it where it reads the
/// document. `strictObject` is `JSONSerialization`'s reading, for strictly valid JSON.
enum FoundationJSON {
    static func object(_ data: some Sequence<UInt8>) -> [String: Any]? {
        (try? JSONDecoder().decode(Value.self, from: Data(data)))?.plain as? [String: Any]
    }

    static func strictObject(_ data: some Sequence<UInt8>) -> [String: Any]? {
        try? JSONSerialization.jsonObject(with: Data(data)) as? [String: Any]
    }

    /// Whether a valid JSON document names a member twice in one object, at any depth, once
    /// escapes are decoded (by `JSONSerialization`): the strict reference for the readers of
    /// signed tokens, which must refuse such a document (RFC 7519 §4), written apart from the
    /// product's parser. Only for documents a parser has already found valid.
    static func namesAMemberTwice(_ data: [UInt8]) -> Bool {
        // Per open container: the member names seen (an object) or nil (an array).
        var containers: [Set<String>?] = []
        var expectingName = false
        var index = 0
        while index < data.count {
            switch data[index] {
            case UInt8(ascii: "{"):
                containers.append([])
                expectingName = true
            case UInt8(ascii: "["):
                containers.append(nil)
                expectingName = false
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                _ = containers.popLast()
                expectingName = false
            case UInt8(ascii: ","):
                expectingName = containers.last.map { $0 != nil } ?? false
            case UInt8(ascii: ":"):
                expectingName = false
            case UInt8(ascii: "\""):
                var end = index + 1
                while end < data.count, data[end] != UInt8(ascii: "\"") { end += data[end] == UInt8(ascii: "\\") ? 2 : 1 }
                guard end < data.count else { return false }
                if expectingName, var names = containers.last ?? nil {
                    guard let name = try? JSONSerialization.jsonObject(with: Data(data[index...end]), options: .fragmentsAllowed) as? String
                    else { return false }
                    if !names.insert(name).inserted { return true }
                    containers[containers.count - 1] = names
                    expectingName = false
                }
                index = end
            default:
                break
            }
            index += 1
        }
        return false
    }

    /// Any JSON value.
    enum Value: Decodable {
        case null, bool(Bool), integer(Int64), number(Double), string(String), array([Value]), object([String: Value])

        init(from decoder: any Decoder) throws {
            if let object = try? decoder.container(keyedBy: Key.self) {
                self = .object(try Dictionary(object.allKeys.map { ($0.stringValue, try object.decode(Value.self, forKey: $0)) }, uniquingKeysWith: { first, _ in first }))
                return
            }
            if var array = try? decoder.unkeyedContainer() {
                var elements: [Value] = []
                while !array.isAtEnd { elements.append(try array.decode(Value.self)) }
                self = .array(elements)
                return
            }
            let value = try decoder.singleValueContainer()
            if value.decodeNil() { self = .null } else if let bool = try? value.decode(Bool.self) { self = .bool(bool) } else if let integer = try? value.decode(Int64.self) {
                self = .integer(integer)
            } else if let number = try? value.decode(Double.self) { self = .number(number) } else { self = .string(try value.decode(String.self)) }
        }

        var plain: Any {
            switch self {
            case .null: NSNull()
            case .bool(let bool): bool
            case .integer(let integer): NSNumber(value: integer)
            case .number(let number): NSNumber(value: number)
            case .string(let string): string
            case .array(let elements): elements.map(\.plain)
            case .object(let members): members.mapValues(\.plain)
            }
        }
    }

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
