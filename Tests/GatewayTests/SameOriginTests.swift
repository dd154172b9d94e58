import HTTPTypes
import Testing

@testable import Gateway

@Suite struct SameOriginTests {
    func fields(_ pairs: [String: String]) -> HTTPFields {
        var fields = HTTPFields()
        for (name, value) in pairs { fields[HTTPField.Name(name)!] = value }
        return fields
    }

    @Test func browsersMustSaySameOriginNonBrowsersPass() {
        let host = "admin.example.com:8443"
        #expect(SameOriginMiddleware.isSameOrigin(self.fields(["Sec-Fetch-Site": "same-origin"]), authority: host))
        #expect(SameOriginMiddleware.isSameOrigin(self.fields(["Sec-Fetch-Site": "none"]), authority: host))
        #expect(!SameOriginMiddleware.isSameOrigin(self.fields(["Sec-Fetch-Site": "same-site"]), authority: host))
        #expect(!SameOriginMiddleware.isSameOrigin(self.fields(["Sec-Fetch-Site": "cross-site"]), authority: host))
        // Sec-Fetch-Site decides when present, whatever Origin says.
        #expect(!SameOriginMiddleware.isSameOrigin(
            self.fields(["Sec-Fetch-Site": "cross-site", "Origin": "https://admin.example.com:8443"]), authority: host))
        #expect(SameOriginMiddleware.isSameOrigin(self.fields(["Origin": "https://ADMIN.example.com:8443"]), authority: host))
        #expect(!SameOriginMiddleware.isSameOrigin(self.fields(["Origin": "https://admin.example.com"]), authority: host))
        #expect(!SameOriginMiddleware.isSameOrigin(self.fields(["Origin": "null"]), authority: host))
        #expect(!SameOriginMiddleware.isSameOrigin(self.fields(["Origin": "https://admin.example.com:8443"]), authority: nil))
        #expect(SameOriginMiddleware.isSameOrigin(self.fields([:]), authority: host))
        #expect(SameOriginMiddleware.isSafe(.get) && SameOriginMiddleware.isSafe(.head) && !SameOriginMiddleware.isSafe(.post))
        #expect(!SameOriginMiddleware.isSafe(.delete))
    }
}
