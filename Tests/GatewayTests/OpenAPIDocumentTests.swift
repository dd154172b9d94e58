import Foundation
import Hummingbird
import Logging
import NIOCore
import Redis
import ServiceKit
import ServiceProtocol
import Testing

@testable import Gateway

/// `openapi.yaml` (embedded as `openapi.json`) describes exactly the routes the gateway's
/// router has: a route added without documenting it, or documented but gone, fails here.
@Suite struct OpenAPIDocumentTests {
    /// The gateway's router as `GatewayApp.start` builds it, over clients that never connect.
    static func routes() throws -> Set<String> {
        let logger = Logger(label: "openapi-test")
        let configuration = try GatewayConfiguration(EnvironmentReader(["ENVIRONMENT": "development", "ADMIN_PASSWORD": "x"]))
        let redis = RedisClient(configuration: RedisConfiguration(url: RedisURL(host: "127.0.0.1", port: 1)), logger: logger)
        let router = GatewayApp.router(
            configuration: configuration, redis: redis, backends: Backends(configuration: configuration, logger: logger),
            revocationCache: nil, userCache: nil, logger: logger)
        return Set(router.routes.map { route in
            // Hummingbird spells a path parameter `:name`, OpenAPI `{name}`.
            let path = route.path.components.map { component -> String in
                let text = component.description
                return text.hasPrefix(":") ? "{\(text.dropFirst())}" : text
            }
            return "\(route.method.rawValue) /\(path.joined(separator: "/"))"
        })
    }

    static func document() throws -> [String: Any] {
        let data = Data(OpenAPIDocument.json.readableBytesView)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    static func documentedOperations() throws -> Set<String> {
        let paths = try #require(try Self.document()["paths"] as? [String: [String: Any]])
        let methods: Set<String> = ["get", "put", "post", "delete", "patch", "head", "options"]
        return Set(paths.flatMap { path, item in item.keys.filter(methods.contains).map { "\($0.uppercased()) \(path)" } })
    }

    @Test func everyRouteIsDocumentedAndEveryDocumentedOperationIsARoute() throws {
        let routes = try Self.routes()
        let documented = try Self.documentedOperations()
        #expect(routes.subtracting(documented).sorted() == [], "routes missing from openapi.yaml")
        #expect(documented.subtracting(routes).sorted() == [], "operations in openapi.yaml the gateway does not have")
        #expect(routes.contains("GET /openapi.json") && routes.contains("GET /admin"))
        #expect(routes.contains("PUT /api/v1/favorites/{item_id}"), "path parameters are compared by name")
    }

    @Test func theServedDocumentIsOpenAPI31WithBothSecuritySchemes() throws {
        let document = try Self.document()
        #expect(document["openapi"] as? String == "3.1.0")
        let components = try #require(document["components"] as? [String: Any])
        let schemes = try #require(components["securitySchemes"] as? [String: [String: Any]])
        #expect(schemes["bearer"]?["scheme"] as? String == "bearer")
        #expect(schemes["dpop"]?["scheme"] as? String == "DPoP")
        #expect(schemes["adminSession"]?["in"] as? String == "cookie")
        #expect(schemes["adminSession"]?["name"] as? String == AdminRoutes.cookieName)
    }

    /// Every catalogue code the gateway can answer is in the document's error schema.
    @Test func theErrorSchemaListsTheWholeCatalogue() throws {
        let components = try #require(try Self.document()["components"] as? [String: Any])
        let schemas = try #require(components["schemas"] as? [String: Any])
        let error = try #require((schemas["Error"] as? [String: Any])?["properties"] as? [String: Any])
        let detail = try #require((error["error"] as? [String: Any])?["properties"] as? [String: Any])
        let codes = Set(try #require((detail["code"] as? [String: Any])?["enum"] as? [String]))
        let statuses: [String: HTTPResponse.Status] = [
            "bad_request": .badRequest, "unauthorized": .unauthorized, "token_expired": .unauthorized,
            "session_revoked": .unauthorized, "invalid_identity_token": .unauthorized, "invalid_refresh_token": .unauthorized,
            "refresh_token_reused": .unauthorized, "invalid_dpop_proof": .unauthorized, "forbidden": .forbidden, "user_inactive": .forbidden, "not_found": .notFound,
            "identity_already_linked": .conflict, "last_identity": .conflict, "conflict": .conflict,
            "payload_too_large": .contentTooLarge, "unsupported_media_type": .unsupportedMediaType,
            "rate_limited": .tooManyRequests, "service_unavailable": .serviceUnavailable, "internal": .internalServerError,
        ]
        #expect(codes == Set(statuses.keys))
        for (code, status) in statuses {
            #expect(APIError.status(for: .init(code)) == status, "\(code)")
        }
    }
}
