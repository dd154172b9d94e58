import Hummingbird
import Logging
import ServiceProtocol

/// Turns whatever a handler throws into the public error body: `APIError` as is, backend
/// `RPCError`s by the catalogue, Hummingbird's own 4xx (unknown route, body too large,
/// undecodable JSON) by their status, and anything else into a logged `internal`.
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            throw error
        } catch let error as RPCError {
            if error.code == .internal {
                context.logger.error("Backend internal error", metadata: ["error": "\(error.message)"])
                throw APIError.internalError
            }
            throw APIError(error)
        } catch let error as HTTPError {
            throw Self.apiError(for: error)
        } catch let error as any HTTPResponseError {
            throw APIError(error.status, ErrorCode(Self.code(for: error.status).rawValue), error.status.reasonPhrase)
        } catch is DecodingError {
            throw APIError.badRequest("The request body is not valid JSON for this call")
        } catch {
            context.logger.error("Unhandled error", metadata: ["error": "\(String(reflecting: error))"])
            throw APIError.internalError
        }
    }

    static func apiError(for error: HTTPError) -> APIError {
        switch error.status {
        case .notFound: return .notFound
        case .contentTooLarge: return .payloadTooLarge
        case .badRequest: return .badRequest(error.body ?? "Bad request")
        default: return APIError(error.status, code(for: error.status), error.body ?? error.status.reasonPhrase)
        }
    }

    static func code(for status: HTTPResponse.Status) -> ErrorCode {
        switch status.code {
        case 400, 405, 422: .badRequest
        case 401: .unauthorized
        case 403: .forbidden
        case 404: .notFound
        case 409: .conflict
        case 413: .payloadTooLarge
        case 415: .unsupportedMediaType
        case 429: .rateLimited
        case 503: .serviceUnavailable
        default: .internal
        }
    }
}
