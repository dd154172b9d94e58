import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP proxy between a client and the gateway that injects the faults a phone meets: it
/// forwards a request and then drops the answer (the connection reset instead), resets a
/// connection before forwarding, or holds an answer past the client's timeout. One request per
/// connection (it asks both sides for `Connection: close`), so each fault hits one request.
/// Plain blocking sockets, a thread per connection: a test tool, not a server.
final class FaultProxy: Sendable {
    enum Fault: String, CaseIterable, Sendable {
        /// The gateway acted on the request; its answer never reaches the client.
        case droppedAnswer = "dropped answer"
        /// The connection is reset before the request is forwarded.
        case reset = "reset"
        /// The answer is held past the client's timeout.
        case delayedAnswer = "delayed answer"
    }

    let port: Int
    private let listener: Int32
    private let upstreamPort: Int
    private let rates: [(Fault, Double)]
    private let delay: TimeInterval
    private let counts = Mutex<(requests: Int, faults: [Fault: Int])>((0, [:]))
    private let stopped = Atomic(false)

    /// A proxy on a free loopback port to `upstreamPort`, injecting each fault at its rate.
    init(upstreamPort: Int, dropRate: Double, resetRate: Double, delayRate: Double, delay: TimeInterval) throws {
        self.upstreamPort = upstreamPort
        self.rates = [(.droppedAnswer, dropRate), (.reset, resetRate), (.delayedAnswer, delayRate)]
        self.delay = delay
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 256) == 0 else { throw StackError.failedToStart("proxy: bind/listen errno \(errno)") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        self.listener = listener
        self.port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { self.acceptLoop() }
    }

    /// Requests seen, and faults injected by kind.
    var figures: (requests: Int, faults: [Fault: Int]) { self.counts.withLock { $0 } }

    func stop() {
        self.stopped.store(true, ordering: .relaxed)
        shutdown(self.listener, Int32(SHUT_RDWR))
        close(self.listener)
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    private func acceptLoop() {
        while !self.stopped.load(ordering: .relaxed) {
            let client = accept(self.listener, nil, nil)
            guard client >= 0 else {
                if errno == EINTR { continue }
                return
            }
            Thread.detachNewThread { self.serve(client) }
        }
    }

    private func pick() -> Fault? {
        var roll = Double.random(in: 0..<1)
        for (fault, rate) in self.rates {
            if roll < rate { return fault }
            roll -= rate
        }
        return nil
    }

    private func serve(_ client: Int32) {
        Self.setTimeout(client, seconds: 10)
        let fault = self.pick()
        self.counts.withLock { counts in
            counts.requests += 1
            if let fault { counts.faults[fault, default: 0] += 1 }
        }
        guard let request = Self.readRequest(client) else { return Self.reset(client) }
        if fault == .reset { return Self.reset(client) }
        guard let response = self.forward(request) else { return Self.reset(client) }
        switch fault {
        case .droppedAnswer:
            Self.reset(client)
        case .delayedAnswer:
            Thread.sleep(forTimeInterval: self.delay)
            Self.writeAll(client, Self.closing(response))
            close(client)
        case .reset, nil:
            Self.writeAll(client, Self.closing(response))
            close(client)
        }
    }

    /// Sends the request to the gateway and reads its answer to the end of the connection.
    private func forward(_ request: [UInt8]) -> [UInt8]? {
        let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(upstream) }
        Self.setTimeout(upstream, seconds: 30)
        var address = Self.loopback(port: UInt16(self.upstreamPort))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0, Self.writeAll(upstream, Self.closing(request)) else { return nil }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(upstream, &buffer, buffer.count, 0)
            if count <= 0 { break }
            response += buffer[0..<count]
        }
        return response.isEmpty ? nil : response
    }

    /// One HTTP/1.1 request: its head and a `Content-Length` body (all the client sends).
    private static func readRequest(_ socket: Int32) -> [UInt8]? {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        while true {
            if let end = Self.find(separator, in: data) {
                let head = String(decoding: data[0..<end], as: UTF8.self)
                let length = head.split(separator: "\r\n").compactMap { line -> Int? in
                    let parts = line.split(separator: ":", maxSplits: 1)
                    guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
                    return Int(parts[1].trimmingCharacters(in: .whitespaces))
                }.first ?? 0
                if data.count >= end + 4 + length { return data }
            }
            let count = recv(socket, &buffer, buffer.count, 0)
            if count <= 0 { return nil }
            data += buffer[0..<count]
        }
    }

    /// The message with its `Connection` header replaced by `Connection: close`.
    private static func closing(_ message: [UInt8]) -> [UInt8] {
        guard let end = Self.find(Array("\r\n\r\n".utf8), in: message) else { return message }
        let lines = String(decoding: message[0..<end], as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: false)
        let kept = lines.filter { !$0.lowercased().hasPrefix("connection:") && !$0.lowercased().hasPrefix("keep-alive:") }
        return Array((kept.joined(separator: "\r\n") + "\r\nConnection: close\r\n\r\n").utf8) + message[(end + 4)...]
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for index in 0...(haystack.count - needle.count) where haystack[index] == needle[0] {
            if Array(haystack[index..<(index + needle.count)]) == needle { return index }
        }
        return nil
    }

    @discardableResult
    private static func writeAll(_ socket: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written <= 0 { return false }
            offset += written
        }
        return true
    }

    /// Closes with a TCP reset (SO_LINGER 0) rather than an orderly close.
    private static func reset(_ socket: Int32) {
        var linger = linger(l_onoff: 1, l_linger: 0)
        setsockopt(socket, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
        close(socket)
    }

    private static func setTimeout(_ socket: Int32, seconds: Int) {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }
}
