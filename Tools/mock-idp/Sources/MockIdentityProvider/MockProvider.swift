/// The two identity providers the mock imitates.
public enum MockProvider: String, Sendable, CaseIterable, Codable {
    case apple
    case google

    /// The `iss` a real token of this provider carries.
    public var issuer: String {
        switch self {
        case .apple: "https://appleid.apple.com"
        case .google: "https://accounts.google.com"
        }
    }
}
