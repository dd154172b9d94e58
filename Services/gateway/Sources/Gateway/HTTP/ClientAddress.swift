import FoundationEssentials

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
import TextCoding
#endif

/// An IPv4 or IPv6 address as its bytes (4 or 16), parsed strictly by `inet_pton`.
struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    let bytes: [UInt8]

    init?(_ text: some StringProtocol) {
        var text = String(text)
        // `[::1]` as some proxies write it; an IPv4 `host:port` is not an address.
        if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            self.bytes = withUnsafeBytes(of: &v4) { Array($0) }
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            let bytes = withUnsafeBytes(of: &v6) { Array($0) }
            // An IPv4-mapped IPv6 address (::ffff:a.b.c.d) is that IPv4 address.
            if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xff && bytes[11] == 0xff {
                self.bytes = Array(bytes[12...])
            } else {
                self.bytes = bytes
            }
            return
        }
        return nil
    }

    var isIPv6: Bool { self.bytes.count == 16 }

    /// The address a rate limit counts: IPv4 as it is, IPv6 by its /64 (one subscriber gets a
    /// whole /64, so counting single IPv6 addresses counts nothing).
    var rateLimitKey: String {
        guard self.isIPv6 else { return self.description }
        return stride(from: 0, to: 8, by: 2).map { String(UInt16(self.bytes[$0]) << 8 | UInt16(self.bytes[$0 + 1]), radix: 16) }
            .joined(separator: ":") + "::/64"
    }

    var description: String {
        if !self.isIPv6 { return self.bytes.map(String.init).joined(separator: ".") }
        return stride(from: 0, to: 16, by: 2).map { String(UInt16(self.bytes[$0]) << 8 | UInt16(self.bytes[$0 + 1]), radix: 16) }
            .joined(separator: ":")
    }
}

/// A CIDR block (`10.0.0.0/8`, `fd00::/8`) or a single address.
struct IPAddressRange: Hashable, Sendable {
    let base: IPAddress
    let prefixLength: Int

    init?(_ text: some StringProtocol) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let base = IPAddress(parts[0]) else { return nil }
        let maximum = base.bytes.count * 8
        if parts.count == 2 {
            guard let length = Int(parts[1]), (0...maximum).contains(length) else { return nil }
            self.prefixLength = length
        } else {
            self.prefixLength = maximum
        }
        self.base = base
    }

    func contains(_ address: IPAddress) -> Bool {
        guard address.bytes.count == self.base.bytes.count else { return false }
        var remaining = self.prefixLength
        for index in 0..<address.bytes.count where remaining > 0 {
            let bits = min(8, remaining)
            let mask = UInt8(truncatingIfNeeded: 0xff << (8 - bits))
            guard address.bytes[index] & mask == self.base.bytes[index] & mask else { return false }
            remaining -= bits
        }
        return true
    }
}

/// Where a request comes from (DESIGN.md section 7): the peer of the connection, unless that
/// peer is one of `TRUSTED_PROXIES`; then the right-most `X-Forwarded-For` entry that is not a
/// trusted proxy (each proxy appends the address it saw; entries further left are whatever the
/// client wrote and are never believed). Nothing is trusted by default.
struct ClientAddressResolver: Sendable {
    let trustedProxies: [IPAddressRange]

    func resolve(peer: IPAddress?, forwardedFor headers: [String]) -> IPAddress? {
        guard let peer else { return nil }
        guard self.isTrusted(peer) else { return peer }
        let entries = headers.flatMap { $0.split(separator: ",") }.map { $0.trimmingWhitespace() }
        var client = peer
        for entry in entries.reversed() {
            // An entry a trusted proxy did not write legibly ends the walk at the last hop known.
            guard let address = Self.address(ofEntry: entry) else { return client }
            client = address
            if !self.isTrusted(address) { return address }
        }
        return client
    }

    /// The address of one `X-Forwarded-For` entry: `ip`, `[v6]`, or with the port some proxies
    /// append, `ip:port` and `[v6]:port` (a bare IPv6 address has colons but no port).
    static func address(ofEntry entry: String) -> IPAddress? {
        if let address = IPAddress(entry) { return address }
        let port: Substring
        let host: Substring
        if entry.hasPrefix("["), let close = entry.firstIndex(of: "]") {
            host = entry[...close]
            port = entry[entry.index(after: close)...]
            guard port.hasPrefix(":") else { return nil }
        } else {
            guard let colon = entry.firstIndex(of: ":"), entry.lastIndex(of: ":") == colon else { return nil }
            host = entry[..<colon]
            port = entry[colon...]
        }
        guard port.count > 1, port.count <= 6, port.dropFirst().allSatisfy({ $0.isASCII && $0.isNumber }),
            let number = Int(port.dropFirst()), number <= 65_535
        else { return nil }
        return IPAddress(host)
    }

    func isTrusted(_ address: IPAddress) -> Bool {
        self.trustedProxies.contains { $0.contains(address) }
    }
}
