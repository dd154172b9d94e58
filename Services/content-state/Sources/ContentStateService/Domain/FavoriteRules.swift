import ContentStateAPI
import ServiceProtocol

/// The bounds of a favorite's optional fields.
enum FavoriteRules {
    /// Nicknames are at most this many Unicode scalars (so at most 400 bytes).
    static let maximumNicknameLength = 100
    /// Positions are integers a JSON number holds exactly in any client (±(2^53−1)).
    static let positionRange: ClosedRange<Int64> = -9_007_199_254_740_991...9_007_199_254_740_991

    static func validate(nickname: FieldUpdate<String>, position: FieldUpdate<Int64>) throws(ContentStateError) {
        if case .set(let text?) = nickname {
            guard text.unicodeScalars.count <= Self.maximumNicknameLength else {
                throw .nicknameTooLong(maximum: Self.maximumNicknameLength)
            }
            guard StorableText.isStorable(text) else { throw .nicknameNotText }
        }
        if case .set(let value?) = position, !Self.positionRange.contains(value) {
            throw .positionOutOfRange
        }
    }
}
