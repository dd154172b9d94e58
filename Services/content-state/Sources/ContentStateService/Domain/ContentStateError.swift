import ContentStateAPI
import ServiceProtocol

/// Why a content-state call was refused; mapped to the public error catalogue here only.
enum ContentStateError: Error, Equatable, RPCErrorConvertible {
    case invalidItemID(String)
    case nicknameTooLong(maximum: Int)
    /// The nickname holds NUL, which no stored text may.
    case nicknameNotText
    case positionOutOfRange
    case invalidLimit
    case batchTooLarge(maximum: Int)
    case invalidCursor
    case favoritesLimitReached(maximum: Int)
    case mergeIntoItself

    var rpcError: RPCError {
        switch self {
        case .invalidItemID(let reason): .badRequest("item_id \(reason)")
        case .nicknameTooLong(let maximum): .badRequest("nickname must be at most \(maximum) characters")
        case .nicknameNotText: .badRequest("nickname must not contain NUL characters")
        case .positionOutOfRange: .badRequest("position must be an integer between -(2^53-1) and 2^53-1")
        case .invalidLimit: .badRequest("limit must be between \(PageLimit.range.lowerBound) and \(PageLimit.range.upperBound)")
        case .batchTooLarge(let maximum): .badRequest("item_ids may hold at most \(maximum) ids")
        case .invalidCursor: .badRequest("cursor is not valid for this list")
        case .favoritesLimitReached(let maximum): .conflict("You can have at most \(maximum) favorites")
        case .mergeIntoItself: .badRequest("a user cannot be merged into itself")
        }
    }
}
