import ServiceKit
import Testing

@testable import Gateway

/// Whose address a rate limit counts (`TRUSTED_PROXIES`, DESIGN.md section 7).
@Suite struct ClientAddressTests {
    func resolve(_ trusted: [String], peer: String, _ forwarded: [String]) -> String? {
        let resolver = ClientAddressResolver(trustedProxies: trusted.compactMap { IPAddressRange($0) })
        return resolver.resolve(peer: IPAddress(peer), forwardedFor: forwarded)?.description
    }

    @Test func nothingIsTrustedByDefault() {
        #expect(self.resolve([], peer: "203.0.113.7", ["198.51.100.1"]) == "203.0.113.7")
        #expect(self.resolve([], peer: "127.0.0.1", ["198.51.100.1"]) == "127.0.0.1")
    }

    @Test func behindATrustedProxyTheRightMostUntrustedEntryIsTheClient() {
        let proxies = ["10.0.0.0/8", "192.0.2.10"]
        // The client wrote a fake first entry; the proxy appended the address it saw.
        #expect(self.resolve(proxies, peer: "10.1.2.3", ["6.6.6.6, 198.51.100.1"]) == "198.51.100.1")
        // Two trusted hops (a CDN then the ingress), over two header lines.
        #expect(self.resolve(proxies, peer: "10.1.2.3", ["6.6.6.6, 198.51.100.1", "192.0.2.10"]) == "198.51.100.1")
        // Every entry trusted: the left-most one.
        #expect(self.resolve(proxies, peer: "10.1.2.3", ["10.9.9.9"]) == "10.9.9.9")
        // No header: the proxy itself.
        #expect(self.resolve(proxies, peer: "10.1.2.3", []) == "10.1.2.3")
        // A peer that is not a trusted proxy is the client, whatever it claims.
        #expect(self.resolve(proxies, peer: "198.51.100.9", ["10.0.0.1"]) == "198.51.100.9")
    }

    @Test func anIllegibleEntryEndsTheWalkAtTheLastKnownHop() {
        #expect(self.resolve(["10.0.0.0/8"], peer: "10.0.0.2", ["198.51.100.1, unknown"]) == "10.0.0.2")
        #expect(self.resolve(["10.0.0.0/8"], peer: "10.0.0.2", ["garbage, 10.0.0.3"]) == "10.0.0.3")
    }

    @Test func rangesAndAddressesOfBothFamilies() throws {
        let v6 = try #require(IPAddressRange("2001:db8::/32"))
        #expect(v6.contains(try #require(IPAddress("2001:db8:1::5"))))
        #expect(!v6.contains(try #require(IPAddress("2001:db9::5"))))
        #expect(!v6.contains(try #require(IPAddress("10.0.0.1"))))
        let odd = try #require(IPAddressRange("172.16.0.0/12"))
        #expect(odd.contains(try #require(IPAddress("172.31.255.255"))))
        #expect(!odd.contains(try #require(IPAddress("172.32.0.0"))))
        #expect(IPAddressRange("0.0.0.0/0")?.contains(try #require(IPAddress("8.8.8.8"))) == true)
        // An IPv4-mapped IPv6 peer is its IPv4 address.
        #expect(IPAddress("::ffff:10.0.0.1") == IPAddress("10.0.0.1"))
        #expect(IPAddress("[::1]")?.description == "0:0:0:0:0:0:0:1")
        for bad in ["", "10.0.0", "10.0.0.1:80", "fe80::1%eth0x", "hello"] {
            #expect(IPAddress(bad) == nil, "\(bad)")
        }
        for bad in ["10.0.0.0/33", "::/129", "10.0.0.0/", "10.0.0.0/x"] {
            #expect(IPAddressRange(bad) == nil, "\(bad)")
        }
    }

    @Test func ipv6ClientsAreCountedByTheirSlash64() throws {
        let a = try #require(IPAddress("2001:db8:aa:bb:1::1"))
        let b = try #require(IPAddress("2001:db8:aa:bb:ffff::2"))
        #expect(a.rateLimitKey == b.rateLimitKey)
        #expect(a.rateLimitKey == "2001:db8:aa:bb::/64")
        #expect(IPAddress("198.51.100.1")?.rateLimitKey == "198.51.100.1")
    }

    @Test func theOldSwitchIsRefusedAndBadListsAreNamed() {
        #expect(throws: ConfigurationError.self) {
            try GatewayConfiguration(EnvironmentReader(["ENVIRONMENT": "development", "TRUST_X_FORWARDED_FOR": "true"]))
        }
        #expect(throws: ConfigurationError.invalid(
            "TRUSTED_PROXIES", "a comma list of addresses or CIDR blocks (10.0.0.0/8, fd00::/8)")) {
            try GatewayConfiguration(EnvironmentReader(["ENVIRONMENT": "development", "TRUSTED_PROXIES": "10.0.0.0/8, proxy.internal"]))
        }
        #expect((try? GatewayConfiguration(EnvironmentReader(["ENVIRONMENT": "development", "TRUSTED_PROXIES": "10.0.0.0/8, ::1"])))?.trustedProxies.count == 2)
    }
}
