import Foundation

/// The key a session is bound to (DPoP, RFC 9449; docs/client.md, "Sessions bound to the
/// device"): a P-256 key the device holds, whose proofs go with the sign-in, every refresh and
/// every request, so that tokens copied off the device are worthless without it. The client
/// makes its own (``LatchkeyClient/Configuration/DeviceKeyChoice/automatic``): in the Secure
/// Enclave where there is one, else a software key kept with the tokens.
public protocol DeviceKey: Sendable {
    /// The public key's coordinates, x then y, 32 bytes each.
    var publicKeyCoordinates: Data { get }
    /// The ES256 signature of `data` (ECDSA P-256 over its SHA-256), r then s, 32 bytes each.
    func signature(for data: Data) throws -> Data
}

extension LatchkeyClient.Configuration {
    /// Which key, if any, the client binds its sessions to.
    public enum DeviceKeyChoice: Sendable {
        /// The client's own: the Secure Enclave where available, else a software P-256 key kept
        /// where the token store keeps the tokens (a Keychain item beside a
        /// ``KeychainTokenStore``'s, a 0600 file beside a ``FileTokenStore``'s, the process's
        /// memory with an ``InMemoryTokenStore``). With another token store: no key.
        case automatic
        /// No key: bearer sessions.
        case none
        /// The app's own key.
        case custom(any DeviceKey)
    }
}

/// Makes DPoP proofs (RFC 9449 section 4.2) with the device key, loaded or made on first use.
/// A proof's `iat` is on the gateway's clock: the device's, corrected by the difference the
/// gateway's `Date` headers show once it exceeds a few seconds (a phone whose clock is minutes
/// off would otherwise have every proof refused as stale).
actor DPoPProofs {
    private let load: @Sendable () async throws -> any DeviceKey
    private var key: (any DeviceKey)?
    private var jwk: String?
    /// Seconds to add to the device's clock to get the gateway's.
    private(set) var clockOffset: TimeInterval = 0
    /// A difference below this is left alone: `Date` has whole seconds, and the gateway allows
    /// some leeway anyway.
    static let clockTolerance: TimeInterval = 5

    init(load: @escaping @Sendable () async throws -> any DeviceKey) {
        self.load = load
    }

    /// A proof for one request: `method`, the URL without query or fragment, now, a fresh `jti`,
    /// and with `accessToken` its hash (`ath`).
    func proof(method: String, url: URL, accessToken: String?, now: Date) async throws -> String {
        let key = try await self.deviceKey()
        let header = #"{"typ":"dpop+jwt","alg":"ES256","jwk":"# + (self.jwk ?? "") + "}"
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        components?.query = nil
        components?.fragment = nil
        var claims: [String: JSONValue] = [
            "jti": .string(UUID().uuidString),
            "htm": .string(method),
            "htu": .string(components?.url?.absoluteString ?? url.absoluteString),
            "iat": .int(Int64(now.addingTimeInterval(self.clockOffset).timeIntervalSince1970)),
        ]
        if let accessToken { claims["ath"] = .string(Base64URL.encode(SHA256.hash(Array(accessToken.utf8)))) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(try encoder.encode(claims)))
        return input + "." + Base64URL.encode(Array(try key.signature(for: Data(input.utf8))))
    }

    /// Takes the gateway's clock from a response's `Date` header (received at `now` by the
    /// device's clock); true when the correction changed, so a proof refused as stale may be
    /// made again.
    @discardableResult
    func observe(serverDate header: String?, now: Date) -> Bool {
        guard let header, let server = self.httpDate.date(from: header) else { return false }
        let offset = server.timeIntervalSince(now)
        let corrected = abs(offset) < Self.clockTolerance ? 0 : offset
        guard abs(corrected - self.clockOffset) >= Self.clockTolerance || (corrected == 0) != (self.clockOffset == 0) else { return false }
        self.clockOffset = corrected
        return true
    }

    /// Reads an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`, RFC 9110 section 5.6.7).
    private let httpDate: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter
    }()

    private func deviceKey() async throws -> any DeviceKey {
        if let key { return key }
        let loaded = try await self.load()
        let coordinates = Array(loaded.publicKeyCoordinates)
        guard coordinates.count == 64 else { throw DeviceKeyError.notP256 }
        self.jwk = #"{"crv":"P-256","kty":"EC","x":""# + Base64URL.encode(coordinates[0..<32]) + #"","y":""#
            + Base64URL.encode(coordinates[32...]) + #""}"#
        self.key = loaded
        return loaded
    }
}

/// Unpadded base64url (RFC 4648 section 5), as JOSE writes it.
enum Base64URL {
    static func encode(_ bytes: some Sequence<UInt8>) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

/// A device key that cannot be made, read or used.
public enum DeviceKeyError: Error, Hashable, Sendable {
    /// The key is not a P-256 key (its public key is not 64 bytes of coordinates).
    case notP256
    /// The platform's crypto library refused: making, reading or signing with the key.
    case cryptoFailure(String)
}
