import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// True when something accepts a TCP connection on `127.0.0.1:port` right now.
public func acceptsConnections(port: Int) -> Bool {
    guard let socket = try? connectedSocket(port: port) else { return false }
    close(socket)
    return true
}

/// Why `connectedSocket(port:)` has no socket to give.
public struct TCPConnectFailure: Error, CustomStringConvertible {
    public var description: String
}

/// A TCP socket connected to `127.0.0.1:port`; the caller closes it.
public func connectedSocket(port: Int) throws -> Int32 {
    let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard socket >= 0 else { throw TCPConnectFailure(description: "socket: \(errno)") }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard connected == 0 else {
        let error = errno
        close(socket)
        throw TCPConnectFailure(description: "connect: \(error)")
    }
    return socket
}
