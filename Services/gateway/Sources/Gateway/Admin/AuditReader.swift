import AuditAPI
import FoundationEssentials
import Hummingbird
import IdentityAPI
import ServiceProtocol
import TokensAPI

/// Reads the audit trail (DESIGN.md section 9.3): identity's and tokens' trails each answer a
/// page for the same filter and cursor, and their merge is the page of the whole trail.
struct AuditReader: Sendable {
    let backends: Backends

    func page(_ params: AuditListParams, context: GatewayRequestContext) async throws -> AuditPage {
        let options = Backends.options(context, idempotent: true)
        async let identity = self.backends.identity.call(Identity.auditList, params, options: options)
        async let tokens = self.backends.tokens.call(Tokens.auditList, params, options: options)
        return AuditPage.merged([try await identity, try await tokens], limit: params.limit ?? 50)
    }

    /// The `limit` and `cursor` of a request's query (the backends check them).
    static func params(_ request: Request, userID: UUID?, type: String? = nil) throws -> AuditListParams {
        AuditListParams(
            userID: userID, type: type, limit: try ContentRoutes.limit(request),
            cursor: request.uri.queryParameters["cursor"].map(String.init))
    }
}
