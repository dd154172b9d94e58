import FoundationEssentials
import ContentStateAPI
import ServiceProtocol

/// Typed members of a client's JSON body, for the params of a backend call. A member of the
/// wrong type is 400 naming it; the rules beyond the type (lengths, ranges, item ids) are the
/// backend's, which answers `bad_request` naming the field.
extension JSONObject {
    /// A string member; nil when absent or `null`.
    func string(_ key: String) throws -> String? {
        switch self[key] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        default: throw APIError.badRequest("\(key) must be a string")
        }
    }

    /// A boolean member that must be there.
    func requiredBool(_ key: String) throws -> Bool {
        guard case .bool(let value)? = self[key] else { throw APIError.badRequest("\(key) must be true or false") }
        return value
    }

    /// An array of item ids (strings) that must be there.
    func itemIDs(_ key: String = "item_ids") throws -> [String] {
        guard case .array(let values)? = self[key] else { throw APIError.badRequest("\(key) must be an array of item ids") }
        var ids: [String] = []
        ids.reserveCapacity(values.count)
        for value in values {
            guard case .string(let id) = value else { throw APIError.badRequest("\(key) must be an array of item ids") }
            ids.append(id)
        }
        return ids
    }

    /// A put's update of an optional text member: absent keeps it, `null` clears it.
    func textUpdate(_ key: String) throws -> FieldUpdate<String> {
        switch self[key] {
        case nil: return .keep
        case .null?: return .set(nil)
        case .string(let value)?: return .set(value)
        default: throw APIError.badRequest("\(key) must be a string or null")
        }
    }

    /// A put's update of an optional integer member: absent keeps it, `null` clears it.
    func integerUpdate(_ key: String) throws -> FieldUpdate<Int64> {
        switch self[key] {
        case nil: return .keep
        case .null?: return .set(nil)
        case .int(let value)?: return .set(value)
        default: throw APIError.badRequest("\(key) must be an integer or null")
        }
    }

    /// The object decoded as `T` by its own `Decodable` rules, as the backend that owns `T`
    /// would decode it; a member that does not fit is 400 naming it.
    func decode<T: Decodable>(as type: T.Type) throws -> T {
        do {
            return try RPCJSON.decode(T.self, from: try self.encoded())
        } catch {
            throw APIError.badRequest(RPCJSON.describe(decodingError: error, root: nil))
        }
    }
}
