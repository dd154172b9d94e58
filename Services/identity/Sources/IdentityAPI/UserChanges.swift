import FoundationEssentials
import TextCoding

/// The Redis channel on which identity announces that a user changed, so that a reader that
/// keeps users (the gateway's user cache) drops its copy (docs/protocol.md, "User changes").
///
/// A message is published after the change is committed and before identity answers the call
/// that made it. It is a hint, not a log: a reader that is not subscribed keeps nothing.
public enum UserChanges {
    public static let channel = "latchkey:users"

    /// One message: `{"kind":"user","user_id":"<uuid>"}`, written by `text(user:)` (ids in
    /// lowercase, as everywhere in the protocol). A reader drops everything it keeps for a
    /// message it cannot read.
    public struct Message: Decodable, Sendable, Equatable {
        public static let userKind = "user"

        public var kind: String
        public var userID: UUID?

        enum CodingKeys: String, CodingKey {
            case kind
            case userID = "user_id"
        }

        /// The text published for a change of `user`.
        public static func text(user: UUID) -> String {
            #"{"kind":"user","user_id":"\#(user.lowercasedText)"}"#
        }

        /// The user a published text names; nil when the text is not a user message.
        public static func user(in text: String) -> UUID? {
            guard let message = try? JSONDecoder().decode(Message.self, from: Data(text.utf8)), message.kind == userKind
            else { return nil }
            return message.userID
        }
    }
}
