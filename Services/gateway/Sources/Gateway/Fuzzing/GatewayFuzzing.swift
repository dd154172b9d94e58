import FoundationEssentials
import Logging
import NIOCore
import ServiceProtocol
import TokensAPI

/// The gateway's readers of untrusted input, for the fuzz targets (`Tools/fuzz`,
/// `scripts/fuzz`): a client's JSON body and the bearer token. Package-only.
package enum GatewayFuzzing {
    /// What the API answers instead of going on: the status and the catalogue code.
    package struct Refusal: Error, Sendable {
        package var status: Int
        package var code: String
    }

    /// A client's body as the content and auth routes read it: the object's members encoded as
    /// a backend's params would be, or the refusal.
    package static func readBody(_ body: ByteBuffer) -> Result<Data, Refusal> {
        do {
            return .success(try JSONBody.object(body).encoded())
        } catch let error as APIError {
            return .failure(Refusal(status: Int(error.status.code), code: error.code.rawValue))
        } catch {
            return .failure(Refusal(status: 500, code: "\(type(of: error))"))
        }
    }

    /// The check in front of every authenticated route, over fixed keys instead of the
    /// tokens service's.
    package struct TokenCheck: Sendable {
        package struct Caller: Sendable, Equatable {
            package var userID: UUID
            package var sessionID: UUID
            package var isAdmin: Bool
        }

        let verifier: AccessTokenVerifier

        package init(keys: PublicJWKS, issuer: String, audience: String, leeway: Int) async throws {
            let logger = Logger(label: "gateway-fuzzing")
            let configuration = RPCClient.Configuration(endpoints: [], serviceName: "tokens", callerName: "fuzzing", serviceToken: "")
            // Never refetched: the client has nowhere to call.
            let forever = Duration.seconds(Int64(1) << 40)
            let cache = SigningKeyCache(
                tokens: RPCClient(configuration: configuration, logger: logger), refetchInterval: forever, maximumAge: forever,
                logger: logger)
            try await cache.install(keys)
            self.verifier = AccessTokenVerifier(keys: cache, issuer: issuer, audience: audience, leeway: leeway)
        }

        package func verify(_ token: String) async -> Result<Caller, Refusal> {
            do {
                let verified = try await self.verifier.verify(token, logger: Logger(label: "gateway-fuzzing"))
                return .success(Caller(userID: verified.caller.userID, sessionID: verified.caller.sessionID, isAdmin: verified.caller.isAdmin))
            } catch let error as APIError {
                return .failure(Refusal(status: Int(error.status.code), code: error.code.rawValue))
            } catch let error as RPCError {
                return .failure(Refusal(status: Int(APIError.status(for: error.code).code), code: error.code.rawValue))
            } catch {
                return .failure(Refusal(status: 500, code: "\(type(of: error))"))
            }
        }
    }
}
