import IdentityAPI
import FoundationEssentials
import Postgres

/// The columns every user query selects, and how a row becomes a `User`.
enum UserRow {
    /// Select list over `identity.users u`, with the user's providers aggregated.
    static let columns = """
        u.id, u.email, u.email_verified, u.display_name, u.is_admin, u.is_active, u.is_guest, u.created_at, u.updated_at,
        (SELECT string_agg(i.provider, ',' ORDER BY i.provider) FROM identity.identities i WHERE i.user_id = u.id) AS providers
        """

    static func user(_ row: PostgresRow) throws -> User {
        let providers = try row.decode("providers", as: String?.self) ?? ""
        return User(
            id: try row.decode("id"), email: try row.decode("email"), emailVerified: try row.decode("email_verified"),
            displayName: try row.decode("display_name"), isAdmin: try row.decode("is_admin"),
            isActive: try row.decode("is_active"), isGuest: try row.decode("is_guest"),
            providers: providers.split(separator: ",").compactMap { IdentityProvider(rawValue: String($0)) },
            createdAt: try row.decode("created_at"), updatedAt: try row.decode("updated_at"))
    }
}
