import FoundationEssentials
import IdentityAPI
import ServiceProtocol
import TextCoding

extension ProviderCredential {
    /// Bounds every client-supplied string (tokens are bounded by the verifiers).
    func validated() throws(IdentityError) -> ProviderCredential {
        var copy = self
        for (field, text) in [("nonce", self.nonce), ("email", self.email), ("full_name", self.fullName)] {
            if let text, !StorableText.isStorable(text) { throw .badRequest("\(field) must not contain NUL characters") }
        }
        if let nonce, nonce.isEmpty || nonce.utf8.count > 512 { throw .badRequest("nonce must be 1 to 512 bytes") }
        if let email, email.utf8.count > 320 { throw .badRequest("email is too long") }
        if let code = self.authorizationCode, code.isEmpty || code.utf8.count > 4096 {
            throw .badRequest("authorization_code must be 1 to 4096 bytes")
        }
        if let name = self.fullName {
            let trimmed = name.trimmingWhitespaceAndNewlines()
            guard trimmed.count <= 200 else { throw .badRequest("full_name is too long") }
            copy.fullName = trimmed.isEmpty ? nil : trimmed
        }
        return copy
    }
}
