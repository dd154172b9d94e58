import Foundation
import Gateway

/// Where the gateway says a request comes from: the input's first line is `TRUSTED_PROXIES`,
/// the second the connection's peer, every further line one `X-Forwarded-For` header.
/// Properties: nothing traps; with no legible peer there is no address; an untrusted peer is
/// the client; behind trusted proxies the client is the right-most entry that is illegible's
/// right neighbour or untrusted, as a walk over the entries says (the reference; an entry may
/// carry a port, `ip:port` or `[v6]:port`); entries left of
/// an untrusted client, which the client wrote, never change it; an address reads back from
/// its own text, and an IPv6 address counts by its /64.
enum ForwardedForFuzzing {
    static func run(_ bytes: UnsafeRawBufferPointer) {
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let proxies = lines[0].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard let resolver = ClientAddressFuzzing(trustedProxies: proxies) else { return }
        let peer = lines.count > 1 ? lines[1] : nil
        let headers = Array(lines.dropFirst(2))
        let entries = headers.flatMap { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
        for text in proxies + (peer.map { [$0] } ?? []) + entries {
            Self.checkAddress(text)
        }
        for proxy in proxies {
            let base = String(proxy.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)[0])
            FuzzCheck.require(resolver.isTrusted(base), "the base of \(proxy) is not trusted")
        }
        let client = resolver.resolve(peer: peer, forwardedFor: headers)
        let expected = Self.walk(resolver, peer: peer, headers: headers)
        FuzzCheck.require(client == expected, "client \(String(describing: client)), the walk says \(String(describing: expected))")
        // What a client writes left of itself never moves the address.
        if let client, !resolver.isTrusted(client) {
            let forged = ["203.0.113.9, not-an-address, " + (headers.first ?? "")] + headers.dropFirst()
            let again = resolver.resolve(peer: peer, forwardedFor: headers.isEmpty ? [] : forged)
            FuzzCheck.require(again == client, "entries left of \(client) moved the client to \(String(describing: again))")
        }
    }

    /// The reference: the peer, unless it is trusted; then each entry from the right in turn,
    /// stopping at the first untrusted one, or at the hop right of an illegible one.
    static func walk(_ resolver: ClientAddressFuzzing, peer: String?, headers: [String]) -> String? {
        guard let peer, let peerAddress = ClientAddressFuzzing.address(peer)?.description else { return nil }
        if !resolver.isTrusted(peer) { return peerAddress }
        let entries = headers.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
        var hop = peerAddress
        var index = entries.count - 1
        while index >= 0 {
            guard let address = Self.entryAddress(entries[index]) else { return hop }
            if !resolver.isTrusted(address) { return address }
            hop = address
            index -= 1
        }
        return hop
    }

    /// An entry's address as proxies write it: `ip`, `[v6]`, or with a port (`ip:port`,
    /// `[v6]:port`, the port 1 to 5 ASCII digits up to 65535); nil when it is none of these.
    static func entryAddress(_ entry: String) -> String? {
        if let address = ClientAddressFuzzing.address(entry) { return address.description }
        let host: Substring
        let port: Substring
        if entry.hasPrefix("["), let close = entry.firstIndex(of: "]") {
            host = entry[...close]
            port = entry[entry.index(after: close)...]
        } else {
            guard entry.filter({ $0 == ":" }).count == 1, let colon = entry.firstIndex(of: ":") else { return nil }
            host = entry[..<colon]
            port = entry[colon...]
        }
        let digits = port.dropFirst()
        guard port.first == ":", (1...5).contains(digits.count), digits.allSatisfy({ ("0"..."9").contains($0) }),
            let number = Int(digits), number <= 65_535
        else { return nil }
        return ClientAddressFuzzing.address(String(host))?.description
    }

    static func checkAddress(_ text: String) {
        guard let address = ClientAddressFuzzing.address(text) else { return }
        let again = ClientAddressFuzzing.address(address.description)
        FuzzCheck.require(again?.description == address.description, "\(text.debugDescription) reads as \(address.description), which reads as \(String(describing: again))")
        if address.isIPv6 {
            let groups = address.description.split(separator: ":", omittingEmptySubsequences: false)
            FuzzCheck.require(address.rateLimitKey == groups.prefix(4).joined(separator: ":") + "::/64", "\(address.description) counts as \(address.rateLimitKey)")
        } else {
            FuzzCheck.require(address.rateLimitKey == address.description, "\(address.description) counts as \(address.rateLimitKey)")
        }
    }
}
