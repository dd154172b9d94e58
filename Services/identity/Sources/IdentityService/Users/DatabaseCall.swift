import Postgres

/// Runs a database call, turning an unreachable Postgres into `storeUnavailable` (retryable)
/// and leaving domain errors as they are.
func database<T: Sendable>(
    isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T
) async throws -> T {
    do {
        return try await body()
    } catch let error as PostgresError {
        switch error {
        case .connectionFailed, .connectionLost, .poolTimeout, .clientShutDown:
            throw IdentityError.storeUnavailable
        default:
            throw error
        }
    }
}
