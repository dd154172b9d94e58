import Testing
@testable import Gateway

/// Issue 42 item 6: an `X-Forwarded-For` entry with a port (`ip:port`, `[v6]:port`), as some
/// proxies write it, names the client, not the end of the walk.
@Suite struct ForwardedForPortTests {
    let resolver = ClientAddressResolver(trustedProxies: [IPAddressRange("10.0.0.0/8")!])
    let proxy = IPAddress("10.0.0.1")

    @Test func anEntryWithAPortNamesItsAddress() {
        for (entry, client) in [
            ("203.0.113.7:51234", "203.0.113.7"), ("[2001:db8::7]:443", "2001:db8::7"), ("[2001:db8::7]", "2001:db8::7"),
            ("2001:db8::7", "2001:db8::7"), ("203.0.113.7", "203.0.113.7"),
        ] {
            #expect(self.resolver.resolve(peer: self.proxy, forwardedFor: ["\(entry), 10.0.0.2:8080"]) == IPAddress(client), "\(entry)")
        }
    }

    @Test func aMalformedPortEndsTheWalkAtTheLastKnownHop() {
        for entry in ["203.0.113.7:", "203.0.113.7:99999", "203.0.113.7:8a", "[2001:db8::7]8080", "[2001:db8::7]:", "1.2.3.4:5:6"] {
            #expect(self.resolver.resolve(peer: self.proxy, forwardedFor: ["\(entry), 10.0.0.2"]) == IPAddress("10.0.0.2"), "\(entry)")
        }
    }
}
