import Hummingbird
import NIOCore

/// `GET /openapi.json`: the public API as OpenAPI 3.1. The source is `openapi.yaml` at the
/// repository root; `scripts/lib/openapi_json.py write` renders it into `Resources/openapi.json`,
/// which is embedded in the executable (CI checks the two agree).
enum OpenAPIDocument {
    static let json = ByteBuffer(bytes: PackageResources.openapi_json)

    static func add(to router: Router<GatewayRequestContext>) {
        router.get("openapi.json") { _, _ in
            var response = jsonResponse(Self.json)
            response.headers[.cacheControl] = "public, max-age=300"
            return response
        }
    }
}
