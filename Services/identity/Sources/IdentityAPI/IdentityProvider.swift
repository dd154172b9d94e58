/// A sign-in provider the service accepts.
public enum IdentityProvider: String, Sendable, Codable, CaseIterable {
    case apple
    case google
}
