import ServiceProtocol

/// What the token service refuses, mapped to the error catalogue in one place.
enum TokenError: Error, RPCErrorConvertible {
    /// Unknown, malformed, expired or revoked refresh token (or its session ended).
    case invalidRefreshToken
    /// A rotated refresh token presented after the grace window; its session is now revoked.
    case refreshTokenReused
    /// An access token that is malformed, badly signed, or for another issuer or audience.
    case invalidAccessToken
    /// A well-signed access token past its `exp`: the caller refreshes.
    case accessTokenExpired
    /// A well-signed access token whose session or user was revoked: the caller signs in again.
    case sessionRevoked
    /// The session does not exist or is not the user's.
    case sessionNotFound
    /// A bound session's refresh without a proof by its key (DESIGN.md section 9.2).
    case invalidDPoPProof

    var rpcError: RPCError {
        switch self {
        case .invalidRefreshToken: RPCError(.invalidRefreshToken, "Session expired, please sign in again")
        case .refreshTokenReused: RPCError(.refreshTokenReused, "This sign-in was used elsewhere; please sign in again")
        case .invalidAccessToken: RPCError(.unauthorized, "The access token is not valid; please sign in again")
        case .accessTokenExpired: RPCError(.tokenExpired, "The access token has expired; refresh it")
        case .sessionRevoked: RPCError(.sessionRevoked, "This session has ended; please sign in again")
        case .sessionNotFound: RPCError(.notFound, "No such session")
        case .invalidDPoPProof: RPCError(.invalidDPoPProof, "This session is bound to a device key; send a DPoP proof signed with it")
        }
    }
}
