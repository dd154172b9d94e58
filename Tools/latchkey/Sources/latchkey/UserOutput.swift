import Foundation
import IdentityAPI
import ServiceProtocol

/// A user on one line, tab-separated for scripts: id, email, state, role, sign-in methods.
struct UserLine {
    var text: String

    init(_ user: User) {
        let state = user.isActive ? "active" : "inactive"
        let role = user.isAdmin ? "admin" : "user"
        let providers = user.providers.map(\.rawValue).joined(separator: ",")
        self.text = [user.id.uuidString.lowercased(), user.email ?? "-", state, role, providers.isEmpty ? "-" : providers]
            .joined(separator: "\t")
    }
}

/// Prints `value` as the services write it on the wire (lowercase ids, RFC 3339 times),
/// indented and with its keys sorted.
func printJSON(_ value: some Encodable) throws {
    let object = try JSONSerialization.jsonObject(with: try RPCJSON.encode(value))
    let text = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    print(String(decoding: text, as: UTF8.self))
}
