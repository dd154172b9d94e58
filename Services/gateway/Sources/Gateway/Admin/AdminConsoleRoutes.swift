import HTTPTypes
import Hummingbird
import NIOCore

/// `GET /admin`: the admin console, a page with its own style sheet and script (no inline
/// code, nothing from another origin) over the admin API and its cookie session. The files
/// are embedded in the executable; the Content-Security-Policy lets the page load only them
/// and talk only to this origin.
enum AdminConsole {
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
        + "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

    /// One file of the console: where it is served, as what, and its bytes.
    struct Asset: Sendable {
        var path: RouterPath
        var contentType: String
        var body: ByteBuffer
    }

    static let assets: [Asset] = [
        Asset(path: "admin", contentType: "text/html; charset=utf-8", body: ByteBuffer(bytes: PackageResources.admin_html)),
        Asset(path: "admin/console.css", contentType: "text/css; charset=utf-8", body: ByteBuffer(bytes: PackageResources.console_css)),
        Asset(path: "admin/console.js", contentType: "text/javascript; charset=utf-8", body: ByteBuffer(bytes: PackageResources.console_js)),
    ]

    static func add(to router: Router<GatewayRequestContext>) {
        for asset in Self.assets {
            router.get(asset.path) { _, _ in
                Response(status: .ok, headers: Self.headers(contentType: asset.contentType), body: .init(byteBuffer: asset.body))
            }
        }
    }

    /// Every console file is sent with the policy and without caching: a new gateway version
    /// never runs an old script against a new API.
    static func headers(contentType: String) -> HTTPFields {
        [
            .contentType: contentType,
            .contentSecurityPolicy: Self.contentSecurityPolicy,
            .xContentTypeOptions: "nosniff",
            .xFrameOptions: "DENY",
            .referrerPolicy: "no-referrer",
            .cacheControl: "no-cache",
        ]
    }
}

extension HTTPField.Name {
    static let xFrameOptions = Self("X-Frame-Options")!
    static let referrerPolicy = Self("Referrer-Policy")!
}
