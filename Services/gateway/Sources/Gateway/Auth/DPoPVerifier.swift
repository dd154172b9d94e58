import DPoP
import FoundationEssentials
import HTTPTypes
import Hummingbird
import Logging

/// The gateway's side of DPoP (RFC 9449, DESIGN.md section 9.2): reads the request's `DPoP`
/// header, verifies the proof (`DPoPProof`), checks it against this request (`DPoPProofCheck`:
/// method, the URL the client called, time, and for an access token its hash and binding),
/// then that its `jti` is new across every gateway (`DPoPReplays`). Every refusal is 401
/// `invalid_dpop_proof`; the reason goes to the log at debug level.
struct DPoPVerifier: Sendable {
    let check: DPoPProofCheck
    let replays: DPoPReplays
    let targetURL: RequestTargetURL
    /// `DPOP_REQUIRED`: sign-ins, refreshes and access tokens without a key are refused.
    let required: Bool

    /// The thumbprint of the proof's key for a call that opens or refreshes a session (sign-in,
    /// guest, refresh): nil without a `DPoP` header, unless proofs are required.
    func sessionKey(_ request: Request, context: GatewayRequestContext) async throws -> String? {
        guard request.headers[.dpop] != nil || self.required else { return nil }
        return try await self.verify(request, context: context, accessToken: nil, boundTo: nil).thumbprint
    }

    /// Verifies the proof that must go with a bound access token: `ath` its hash, signed by
    /// the key its `cnf.jkt` names.
    func verifyBound(_ request: Request, context: GatewayRequestContext, accessToken: String, boundTo key: String) async throws {
        _ = try await self.verify(request, context: context, accessToken: accessToken, boundTo: key)
    }

    private func verify(
        _ request: Request, context: GatewayRequestContext, accessToken: String?, boundTo key: String?
    ) async throws -> DPoPProof {
        let now = Date().timeIntervalSince1970
        let proof: DPoPProof
        do throws(DPoPProofError) {
            let headers = request.headers[values: .dpop]
            guard headers.count == 1 else { throw .missing }
            proof = try DPoPProof(headers[0], now: now, leeway: Double(self.check.leeway))
            try self.check.check(
                proof, method: request.method.rawValue, uri: self.targetURL.url(of: request, context: context), now: now,
                accessToken: accessToken, boundTo: key)
        } catch {
            throw Self.refusal(error, logger: context.logger)
        }
        guard try await self.replays.firstUse(of: proof, logger: context.logger) else {
            throw Self.refusal(.replayed, logger: context.logger)
        }
        return proof
    }

    static func refusal(_ error: DPoPProofError, logger: Logger) -> APIError {
        logger.debug("DPoP proof refused", metadata: ["reason": "\(error)"])
        return APIError.invalidDPoPProof
    }
}

extension HTTPField.Name {
    /// `DPoP`: the proof header (RFC 9449 section 4.1).
    static let dpop = Self("DPoP")!
    static let xForwardedProto = Self("X-Forwarded-Proto")!
    static let xForwardedHost = Self("X-Forwarded-Host")!
}
