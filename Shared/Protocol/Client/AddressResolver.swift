import FoundationEssentials
import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// Turns an endpoint into every socket address its host stands for (getaddrinfo, off the
/// cooperative pool).
enum AddressResolver {
    static func resolve(_ endpoint: RPCEndpoint) async throws -> [SocketAddress] {
        if let literal = try? SocketAddress(ipAddress: endpoint.host, port: endpoint.port) {
            return [literal]
        }
        return try await NIOThreadPool.singleton.runIfActive {
            try Self.lookup(endpoint)
        }
    }

    private static func lookup(_ endpoint: RPCEndpoint) throws -> [SocketAddress] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_protocol = Int32(IPPROTO_TCP)
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(endpoint.host, String(endpoint.port), &hints, &result)
        guard status == 0, let first = result else {
            throw RPCError(.serviceUnavailable, "Cannot resolve \(endpoint.host)")
        }
        defer { freeaddrinfo(first) }
        var addresses: [SocketAddress] = []
        var current: UnsafeMutablePointer<addrinfo>? = first
        while let info = current {
            if let sockaddr = info.pointee.ai_addr {
                switch info.pointee.ai_family {
                case AF_INET:
                    let address = sockaddr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee }
                    addresses.append(SocketAddress(address, host: endpoint.host))
                case AF_INET6:
                    let address = sockaddr.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee }
                    addresses.append(SocketAddress(address, host: endpoint.host))
                default:
                    break
                }
            }
            current = info.pointee.ai_next
        }
        var seen = Set<String>()
        return addresses.filter { seen.insert($0.description).inserted }
    }
}
