import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization
import TestSupport
import Testing

@testable import Gateway

#if canImport(Glibc)
import Glibc
#endif

/// The gateway's public HTTP/1 server (`PublicHTTPServer`, `HTTPRequestTaskHandler`) over real
/// TCP: what a client's bytes get back, pipelining, bodies and their limit, closing, and
/// graceful shutdown.
@Suite struct PublicHTTPServerTests {
    static let maxBodyBytes = 1_000

    struct Boom: Error {}

    /// This test's server's `Server` header: tests run side by side, and a port one of them frees
    /// may be taken by another's server.
    let serverName = "gateway-test-\(UUID().uuidString.prefix(8))"

    /// A router with routes that show what the server did: the body's size as read with the
    /// limit, a route that waits before answering, one that throws an error the router does not
    /// know; behind the gateway's `BodyLimitMiddleware`, which refuses a declared length over the limit.
    static func router() -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        router.add(middleware: BodyLimitMiddleware(maxBodyBytes: Self.maxBodyBytes))
        router.get("hello") { _, _ in "hello" }
        router.post("size") { request, _ in
            var request = request
            return String(try await request.collectBody(upTo: Self.maxBodyBytes).readableBytes)
        }
        router.get("slow/:ms") { _, context in
            let milliseconds = try context.parameters.require("ms", as: Int.self)
            try await Task.sleep(for: .milliseconds(milliseconds))
            return "slept \(milliseconds)"
        }
        router.get("boom") { _, _ -> String in throw Boom() }
        // A body of two parts with no length named; the same with trailers; no content at all.
        router.get("parts") { _, _ in
            Response(status: .ok, body: ResponseBody { writer in
                try await writer.write(ByteBuffer(string: "ab"))
                try await writer.write(ByteBuffer(string: "cd"))
                try await writer.finish(nil)
            })
        }
        router.get("trailed") { _, _ in
            Response(status: .ok, body: ResponseBody { writer in
                try await writer.write(ByteBuffer(string: "abcd"))
                try await writer.finish([HTTPField.Name("X-Check")!: "done"])
            })
        }
        router.get("nothing") { _, _ in
            Response(status: .noContent, headers: [.contentLength: "0"], body: ResponseBody(byteBuffer: ByteBuffer(string: "dropped")))
        }
        router.head("hello") { _, _ in
            Response(status: .ok, headers: [.contentLength: "5"])
        }
        return router
    }

    /// Runs the server on a free port for `body`, then shuts it down gracefully.
    func withServer(_ body: (Int, ServiceGroup) async throws -> Void) async throws {
        let logger = Logger(label: "public-http-server-test")
        let port = Mutex<Int?>(nil)
        let server = PublicHTTPServer(
            responder: Self.router().buildResponder(), maxBodyBytes: Self.maxBodyBytes, serverName: self.serverName, logger: logger
        ).service(address: .hostname("127.0.0.1", port: 0)) { listening in port.withLock { $0 = listening } }
        let group = ServiceGroup(configuration: .init(services: [.init(service: server)], logger: logger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            // The unit tests run side by side on the same cores: the start may wait its turn.
            try await waitUntil("the server listens", interval: .milliseconds(10)) { port.withLock { $0 } != nil }
            let listening = try #require(port.withLock { $0 }, "the server did not start listening")
            do {
                try await body(listening, group)
            } catch {
                await group.triggerGracefulShutdown()
                throw error
            }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }

    @Test func answersWithTheRoutersResponseAndTheServerHeaders() async throws {
        try await self.withServer { port, _ in
            let client = try RawHTTPClient(port: port)
            try client.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 200)
            #expect(response.body == "hello")
            #expect(response.headers["content-length"] == "5")
            #expect(response.headers["server"] == self.serverName)
            let date = try #require(response.headers["date"])
            #expect(date.wholeMatch(of: /[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT/) != nil, "\(date)")
            // The connection stays open for the next request.
            try client.send("GET /nowhere HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await client.readResponse().status == 404)
        }
    }

    @Test func framesEachResponseAsItsStatusAndMethodSay() async throws {
        try await self.withServer { port, _ in
            let client = try RawHTTPClient(port: port)
            // A body whose length the route did not name goes with the length it has.
            try client.send("GET /parts HTTP/1.1\r\nHost: x\r\n\r\n")
            let parts = try await client.readResponse()
            #expect(parts.body == "abcd" && parts.headers["content-length"] == "4" && parts.headers["transfer-encoding"] == nil)
            // 204 goes without a body or a length; HEAD with its length and no body: the next
            // response on the connection reads right after either.
            try client.send("GET /nothing HTTP/1.1\r\nHost: x\r\n\r\nHEAD /hello HTTP/1.1\r\nHost: x\r\n\r\nGET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            let nothing = try await client.readResponse()
            #expect(nothing.status == 204 && nothing.headers["content-length"] == nil && nothing.body.isEmpty)
            let head = try await client.readResponse(bodiless: true)
            #expect(head.status == 200 && head.headers["content-length"] == "5")
            #expect(try await client.readResponse().body == "hello")
            // Trailers need chunks.
            try client.send("GET /trailed HTTP/1.1\r\nHost: x\r\n\r\n")
            let trailed = try await client.readRaw(through: "\r\n0\r\nX-Check: done\r\n\r\n")
            #expect(trailed.hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(trailed.lowercased().contains("\r\ntransfer-encoding: chunked\r\n") && !trailed.lowercased().contains("content-length"))
            #expect(trailed.hasSuffix("\r\n\r\n4\r\nabcd\r\n0\r\nX-Check: done\r\n\r\n"))
            // Reason phrases as NIO's encoder wrote them.
            try client.send("GET /nowhere HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await client.readRaw(through: "\r\n\r\n").hasPrefix("HTTP/1.1 404 Not Found\r\n"))
        }
    }

    @Test func gracefulShutdownClosesAnIdleConnectionAtOnce() async throws {
        try await self.withServer { port, group in
            let client = try RawHTTPClient(port: port)
            try client.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await client.readResponse().body == "hello")
            await group.triggerGracefulShutdown()
            #expect(try await client.readsEndOfStream(), "the server did not close the idle connection")
        }
    }

    @Test func formatsTheDateHeaderAsIMFFixdate() {
        #expect(ResponseHeaders.imfFixdate(secondsSince1970: 784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(ResponseHeaders.imfFixdate(secondsSince1970: 1_798_761_599) == "Thu, 31 Dec 2026 23:59:59 GMT")
    }

    @Test func answersPipelinedRequestsInTheOrderTheyCame() async throws {
        try await self.withServer { port, _ in
            let client = try RawHTTPClient(port: port)
            // The first takes longest: answered out of order, its response would come last.
            try client.send(
                "GET /slow/300 HTTP/1.1\r\nHost: x\r\n\r\nGET /slow/0 HTTP/1.1\r\nHost: x\r\n\r\nGET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await client.readResponse().body == "slept 300")
            #expect(try await client.readResponse().body == "slept 0")
            #expect(try await client.readResponse().body == "hello")
        }
    }

    @Test func answersManyPipelinedRequestsInOneWriteInOrder() async throws {
        try await self.withServer { port, _ in
            let client = try RawHTTPClient(port: port)
            // More than one read's worth: the rest waits in the socket while they are answered.
            let count = 2_000
            try client.send((0..<count).map { "GET /slow/\($0 % 2) HTTP/1.1\r\nHost: x\r\n\r\n" }.joined())
            var bodies: [String] = []
            for _ in 0..<count { bodies.append(try await client.readResponse().body) }
            #expect(bodies == (0..<count).map { "slept \($0 % 2)" })
        }
    }

    @Test func answersTheRequestsBeforeBadBytesThenRefusesThem() async throws {
        try await self.withServer { port, _ in
            let client = try RawHTTPClient(port: port)
            try client.send("GET /slow/200 HTTP/1.1\r\nHost: x\r\n\r\nGET /hello HTTP/1.1\r\nHost: x\r\n\r\nNOT HTTP AT ALL\r\n\r\n")
            #expect(try await client.readResponse().body == "slept 200")
            #expect(try await client.readResponse().body == "hello")
            let refusal = try await client.readResponse()
            #expect(refusal.status == 400)
            #expect(refusal.headers["connection"] == "close")
            #expect(try await client.readsEndOfStream())
        }
    }

    @Test func answersNothingPipelinedAfterARequestThatAsksToClose() async throws {
        try await self.withServer { port, _ in
            let client = try RawHTTPClient(port: port)
            try client.send(
                "GET /slow/100 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\nGET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await client.readResponse().body == "slept 100")
            #expect(try await client.readsEndOfStream())
        }
    }

    @Test func givesHandlersTheBodyUpToTheLimit() async throws {
        try await self.withServer { port, _ in
            let client = try RawHTTPClient(port: port)
            let body = String(repeating: "a", count: Self.maxBodyBytes)
            try client.send("POST /size HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
            let response = try await client.readResponse()
            #expect(response.status == 200)
            #expect(response.body == "\(Self.maxBodyBytes)")
            // In chunks without a length, in two writes.
            try client.send("POST /size HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n")
            try client.send("2\r\nde\r\n0\r\n\r\n")
            #expect(try await client.readResponse().body == "5")
        }
    }

    @Test func refusesABodyThatGrowsPastTheLimitAndKeepsTheConnection() async throws {
        try await self.withServer { port, _ in
            let client = try RawHTTPClient(port: port)
            let chunk = String(repeating: "b", count: 600)
            try client.send("POST /size HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
            for _ in 0..<3 { try client.send("258\r\n\(chunk)\r\n") }  // 0x258 = 600
            try client.send("0\r\n\r\n")
            #expect(try await client.readResponse().status == 413)
            try client.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await client.readResponse().body == "hello")
        }
    }

    @Test func answersADeclaredLengthOverTheLimitBeforeTheBodyComes() async throws {
        try await self.withServer { port, _ in
            let client = try RawHTTPClient(port: port)
            // Only the head is sent: the answer must not wait for the 10 MB.
            try client.send("POST /size HTTP/1.1\r\nHost: x\r\nContent-Length: 10000000\r\n\r\n")
            #expect(try await client.readResponse().status == 413)
        }
    }

    @Test func closesAfterAnsweringARequestThatAsksTo() async throws {
        try await self.withServer { port, _ in
            let client = try RawHTTPClient(port: port)
            try client.send("GET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(try await client.readResponse().body == "hello")
            #expect(try await client.readsEndOfStream())
        }
    }

    @Test func answersAnUnknownErrorWith500AndBadBytesWith400() async throws {
        try await self.withServer { port, _ in
            let client = try RawHTTPClient(port: port)
            try client.send("GET /boom HTTP/1.1\r\nHost: x\r\n\r\n")
            let boom = try await client.readResponse()
            #expect(boom.status == 500)
            #expect(boom.body.isEmpty)
            try client.send("NOT HTTP AT ALL\r\n\r\n")
            #expect(try await client.readResponse().status == 400)
            #expect(try await client.readsEndOfStream())
        }
    }

    @Test func gracefulShutdownFinishesTheRequestInHandThenCloses() async throws {
        try await self.withServer { port, group in
            let client = try RawHTTPClient(port: port)
            try client.send("GET /slow/500 HTTP/1.1\r\nHost: x\r\n\r\n")
            try await Task.sleep(for: .milliseconds(100))  // the request is in hand
            await group.triggerGracefulShutdown()
            let response = try await client.readResponse()
            #expect(response.status == 200)
            #expect(response.body == "slept 500")
            #expect(try await client.readsEndOfStream())
            // The port no longer reaches this server: refused, or taken meanwhile by a server of
            // a test running alongside (a port freed may be handed out again at once).
            if let other = try? RawHTTPClient(port: port) {
                try? other.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
                #expect((try? await other.readResponse())?.headers["server"] != self.serverName)
            }
        }
    }
}

/// An HTTP/1.1 client over a plain socket, for bytes no HTTP library would send (pipelined
/// requests, chunks in separate writes, garbage). Its reads wait without holding a thread and
/// give up after `timeout`.
final class RawHTTPClient {
    struct Response {
        var status: Int
        var headers: [String: String]
        var body: String
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private let socket: Int32
    private var pending: [UInt8] = []

    /// How long a read waits for the server.
    static let timeout = Duration.seconds(10)

    init(port: Int) throws {
        self.socket = try connectedSocket(port: port)
    }

    deinit { close(self.socket) }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(self.socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw Failure(description: "send: \(errno)") }
            sent += count
        }
    }

    /// The next response (its body by `Content-Length`; none when `bodiless`, as for `HEAD`).
    func readResponse(bodiless: Bool = false) async throws -> Response {
        let headEnd = Array("\r\n\r\n".utf8)
        var end: Int?
        while end == nil {
            end = self.pending.firstRange(of: headEnd)?.upperBound
            if end == nil { try await self.receive() }
        }
        let head = String(decoding: self.pending[..<end!], as: UTF8.self)
        self.pending.removeFirst(end!)
        var lines = head.split(separator: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw Failure(description: "status line: \(head)") }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let length = bodiless ? 0 : Int(headers["content-length"] ?? "0") ?? 0
        while self.pending.count < length { try await self.receive() }
        let body = String(decoding: self.pending[..<length], as: UTF8.self)
        self.pending.removeFirst(length)
        return Response(status: status, headers: headers, body: body)
    }

    /// The bytes up to and including the first `marker`, as text.
    func readRaw(through marker: String) async throws -> String {
        let bytes = Array(marker.utf8)
        while self.pending.firstRange(of: bytes) == nil { try await self.receive() }
        let end = self.pending.firstRange(of: bytes)!.upperBound
        defer { self.pending.removeFirst(end) }
        return String(decoding: self.pending[..<end], as: UTF8.self)
    }

    /// True when the server has closed the connection (and sent nothing more); false while it is open.
    func closedByServer() throws -> Bool {
        var byte: UInt8 = 0
        let count = recv(self.socket, &byte, 1, Int32(MSG_DONTWAIT))
        if count < 0, errno == EAGAIN || errno == EWOULDBLOCK { return false }
        if count < 0 { throw Failure(description: "recv: \(errno)") }
        if count > 0 { throw Failure(description: "a byte after the responses") }
        return true
    }

    /// True when the server closes the connection within `timeout` (and sends nothing more).
    func readsEndOfStream(timeout: Duration = RawHTTPClient.timeout) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while try !self.closedByServer() {
            guard ContinuousClock.now < deadline else { return false }
            try await Task.sleep(for: .milliseconds(1))
        }
        return true
    }

    /// Appends the next bytes that come to `pending`; throws when the server closes first or
    /// nothing comes within `timeout`. Asks with `MSG_DONTWAIT` and sleeps between asks: the
    /// tests run side by side on the cooperative pool (two threads on two cores), and a read that
    /// blocked its thread would hold up the server's own work, graceful shutdown among it.
    private func receive(timeout: Duration = RawHTTPClient.timeout) async throws {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let deadline = ContinuousClock.now + timeout
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(self.socket, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count > 0 {
                self.pending += buffer[..<count]
                return
            }
            if count == 0 { throw Failure(description: "closed by the server") }
            guard errno == EAGAIN || errno == EWOULDBLOCK else { throw Failure(description: "recv: \(errno)") }
            guard ContinuousClock.now < deadline else { throw Failure(description: "nothing came in \(timeout)") }
            try await Task.sleep(for: .milliseconds(1))
        }
    }
}
