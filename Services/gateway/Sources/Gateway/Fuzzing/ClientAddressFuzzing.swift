/// The gateway's reading of where a request comes from (`TRUSTED_PROXIES`, the peer,
/// `X-Forwarded-For`), for the fuzz targets (`Tools/fuzz`, `scripts/fuzz`). Addresses go in and
/// out as text. Package-only.
package struct ClientAddressFuzzing: Sendable {
    let resolver: ClientAddressResolver

    /// The resolver behind `trustedProxies` (`TRUSTED_PROXIES` entries); nil when one of them
    /// is no address or CIDR block (the gateway does not start).
    package init?(trustedProxies: [String]) {
        var ranges: [IPAddressRange] = []
        for entry in trustedProxies {
            guard let range = IPAddressRange(entry) else { return nil }
            ranges.append(range)
        }
        self.resolver = ClientAddressResolver(trustedProxies: ranges)
    }

    /// The client address a rate limit counts for a request from `peer`; nil without a peer.
    package func resolve(peer: String?, forwardedFor headers: [String]) -> String? {
        self.resolver.resolve(peer: peer.flatMap { IPAddress($0) }, forwardedFor: headers)?.description
    }

    /// Whether `address` is one of the trusted proxies.
    package func isTrusted(_ address: String) -> Bool {
        guard let address = IPAddress(address) else { return false }
        return self.resolver.trustedProxies.contains { $0.contains(address) }
    }

    /// An address as the gateway reads it: written out again, with the key a rate limit counts
    /// it under; nil when it is no address.
    package static func address(_ text: String) -> (description: String, rateLimitKey: String, isIPv6: Bool)? {
        IPAddress(text).map { ($0.description, $0.rateLimitKey, $0.isIPv6) }
    }
}
