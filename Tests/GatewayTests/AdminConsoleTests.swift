import Foundation
import NIOCore
import Testing

@testable import Gateway

/// The admin console's files: nothing inline, nothing from elsewhere, and a policy that
/// enforces both; the page loads exactly the style sheet and script the gateway serves.
@Suite struct AdminConsoleTests {
    static func text(_ path: String) throws -> String {
        let asset = try #require(AdminConsole.assets.first { $0.path.description == path })
        return String(decoding: asset.body.readableBytesView, as: UTF8.self)
    }

    @Test func thePolicyAllowsOnlyThisOriginAndNoInlineCode() {
        let policy = AdminConsole.contentSecurityPolicy
        let directives = Dictionary(uniqueKeysWithValues: policy.split(separator: ";").map { directive in
            let parts = directive.split(separator: " ", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            return (parts[0], parts.count > 1 ? parts[1] : "")
        })
        #expect(directives["default-src"] == "'none'")
        #expect(directives["script-src"] == "'self'")
        #expect(directives["style-src"] == "'self'")
        #expect(directives["connect-src"] == "'self'")
        #expect(directives["frame-ancestors"] == "'none'")
        #expect(!policy.contains("unsafe-inline") && !policy.contains("unsafe-eval") && !policy.contains("http"))
        let headers = AdminConsole.headers(contentType: "text/html; charset=utf-8")
        #expect(headers[.contentSecurityPolicy] == policy)
        #expect(headers[.xContentTypeOptions] == "nosniff")
    }

    @Test func thePageHasNoInlineScriptOrStyleAndLoadsOnlyItsOwnFiles() throws {
        let html = try Self.text("/admin")
        #expect(html.contains(#"<script src="/admin/console.js" defer></script>"#))
        #expect(html.contains(#"<link rel="stylesheet" href="/admin/console.css">"#))
        #expect(html.components(separatedBy: "<script").count == 2, "one script element, the external one")
        #expect(!html.contains("<style") && !html.contains("style=") && !html.contains("javascript:"))
        #expect(html.range(of: #"\son[a-z]+="#, options: .regularExpression) == nil, "no inline event handlers")
        #expect(html.range(of: #"(src|href)="(https?:)?//"#, options: .regularExpression) == nil, "nothing from another origin")
        // Every input has a label.
        for id in ["password", "query"] {
            #expect(html.contains(#"<label for="\#(id)">"#), "\(id) has a label")
        }
    }

    @Test func theScriptNeverInsertsHTMLOrEvaluatesText() throws {
        let script = try Self.text("/admin/console.js")
        for forbidden in ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"] {
            #expect(!script.contains(forbidden), "\(forbidden)")
        }
        #expect(script.contains("textContent"))
    }
}
