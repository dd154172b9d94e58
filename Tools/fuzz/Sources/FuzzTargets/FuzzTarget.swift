import Foundation

/// The fuzz targets: each reads bytes an attacker controls, the way the product does, and
/// checks properties of what comes out. A failed property stops the process (`FuzzCheck`), which
/// libFuzzer records as a crash with its input. `scripts/fuzz` runs them; the seed corpus is in
/// `Tools/fuzz/corpus/<name>`; `FuzzCorpusTests` replays the corpus in every test run.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// The RPC frame decoder and the envelope scanner behind every backend's port.
    case frames
    /// The RPC layer's JSON decoder, against Foundation's (differential).
    case jsonDecoder = "json-decoder"
    /// The gateway's reader of a client's JSON body.
    case requestBody = "request-body"
    /// The gateway's access-token check: parsing, key choice, signature, claims.
    case accessToken = "access-token"
    /// Identity's reading of a provider token's header (`kid`, `alg`) before it picks a key.
    case providerTokenHeader = "provider-token-header"
    /// Identity's decoder of Apple's and Google's token claims, against Foundation's (differential).
    case providerClaims = "provider-claims"
    /// The `events` claim of an Apple server-to-server notification.
    case appleEvents = "apple-events"
    /// A provider's JWKS document and its `Cache-Control` lifetime, as identity's key cache reads them.
    case jwks
    /// The list cursors callers hand back: content-state's pages and changes feed, identity's user list.
    case cursors
    /// The gateway's client address: `TRUSTED_PROXIES`, the peer and `X-Forwarded-For`.
    case forwardedFor = "forwarded-for"
    /// The RESP replies a Redis server sends, as every connection reads them.
    case resp
    /// A user's revocation not-before as the gateway and `tokens` read it from Redis.
    case revocationNotBefore = "revocation-not-before"
    /// The gateway's reading of a DPoP proof (RFC 9449): parsing, key, thumbprint, signature, claims.
    case dpopProof = "dpop-proof"

    /// Runs the target on one input.
    public func run(_ bytes: UnsafeRawBufferPointer) {
        switch self {
        case .frames: FrameFuzzing.run(bytes)
        case .jsonDecoder: JSONDecoderFuzzing.run(bytes)
        case .requestBody: RequestBodyFuzzing.run(bytes)
        case .accessToken: AccessTokenFuzzing.shared.run(bytes)
        case .providerTokenHeader: ProviderTokenHeaderFuzzing.run(bytes)
        case .providerClaims: ProviderClaimsFuzzing.run(bytes)
        case .appleEvents: AppleEventsFuzzing.run(bytes)
        case .jwks: JWKSFuzzing.run(bytes)
        case .cursors: CursorFuzzing.run(bytes)
        case .forwardedFor: ForwardedForFuzzing.run(bytes)
        case .resp: RESPFuzzing.run(bytes)
        case .revocationNotBefore: NotBeforeFuzzing.run(bytes)
        case .dpopProof: DPoPProofFuzzing.run(bytes)
        }
    }
}

/// A property of a target's output.
enum FuzzCheck {
    static func require(_ condition: Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) {
        guard !condition else { return }
        fatalError("fuzz property failed: \(message())", file: file, line: line)
    }
}
