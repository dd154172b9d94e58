import DPoP
import Foundation
import Testing
import TestSupport

/// A verified proof must be for this request, now, and (with an access token) for that token
/// and the key it is bound to.
@Suite struct DPoPProofCheckTests {
    let maker = DPoPProofMaker()
    let check = DPoPProofCheck(maximumAge: 60, leeway: 5)
    let url = "https://api.example.com/api/v1/favorites/a%2Fb"
    let now = Date().timeIntervalSince1970.rounded(.down)

    func failure(
        _ proof: String, method: String = "PUT", uri: String? = nil, token: String? = nil, boundTo: String? = nil
    ) -> DPoPProofError? {
        do {
            let parsed = try DPoPProof(proof, now: self.now, leeway: 5)
            try self.check.check(parsed, method: method, uri: uri ?? self.url, now: self.now, accessToken: token, boundTo: boundTo)
            return nil
        } catch {
            return error
        }
    }

    @Test func aProofForThisRequestPasses() {
        let proof = self.maker.proof(method: "PUT", url: self.url, accessToken: "tok", issuedAt: Date(timeIntervalSince1970: self.now))
        #expect(self.failure(proof, token: "tok", boundTo: self.maker.thumbprint) == nil)
    }

    @Test func methodMustMatch() {
        #expect(self.failure(self.maker.proof(method: "GET", url: self.url)) == .wrongMethod)
        #expect(self.failure(self.maker.proof(method: "put", url: self.url)) == .wrongMethod)
    }

    @Test func targetURIMatchesWithoutQueryOrFragmentAfterNormalization() {
        #expect(self.failure(self.maker.proof(method: "PUT", url: self.url + "?x=1#f")) == nil)
        #expect(self.failure(self.maker.proof(method: "PUT", url: "HTTPS://API.example.com:443/api/v1/favorites/a%2Fb")) == nil)
        #expect(self.failure(self.maker.proof(method: "PUT", url: "http://api.example.com/api/v1/favorites/a%2Fb")) == .wrongURI)
        #expect(self.failure(self.maker.proof(method: "PUT", url: "https://api.example.com:8443/api/v1/favorites/a%2Fb")) == .wrongURI)
        #expect(self.failure(self.maker.proof(method: "PUT", url: "https://evil.example/api/v1/favorites/a%2Fb")) == .wrongURI)
        #expect(self.failure(self.maker.proof(method: "PUT", url: "https://api.example.com/api/v1/favorites/a/b")) == .wrongURI)
        #expect(self.failure(self.maker.proof(method: "PUT", url: "/api/v1/favorites/a%2Fb")) == .wrongURI)
        #expect(DPoPTargetURI.normalized("http://h:80") == "http://h/")
        #expect(DPoPTargetURI.normalized("http://[::1]:8080/p") == "http://[::1]:8080/p")
        #expect(DPoPTargetURI.normalized("ftp://h/p") == nil)
        #expect(DPoPTargetURI.normalized("https://user@h/p") == nil)
    }

    @Test func issuedAtMustBeRecentAndNotAhead() {
        let at = { (offset: Double) in self.maker.proof(method: "PUT", url: self.url, issuedAt: Date(timeIntervalSince1970: self.now + offset)) }
        #expect(self.failure(at(-65)) == nil)
        #expect(self.failure(at(-66)) == .stale)
        #expect(self.failure(at(5)) == nil)
        #expect(self.failure(at(6)) == .stale)
        #expect(self.check.replayWindow == 70)
    }

    @Test func accessTokenHashMustBeThereAndMatch() {
        #expect(self.failure(self.maker.proof(method: "PUT", url: self.url), token: "tok") == .wrongAccessTokenHash)
        #expect(self.failure(self.maker.proof(method: "PUT", url: self.url, accessToken: "other"), token: "tok") == .wrongAccessTokenHash)
    }

    @Test func theKeyMustBeTheOneTheTokenIsBoundTo() {
        let other = DPoPProofMaker()
        #expect(
            self.failure(other.proof(method: "PUT", url: self.url, accessToken: "tok"), token: "tok", boundTo: self.maker.thumbprint)
                == .wrongKey)
    }
}
