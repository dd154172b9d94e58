import HTTPTypes
import NIOCore
import NIOHTTP1

/// A whole response as HTTP/1.1 bytes, head and body in one buffer for one write on the
/// connection: the status line, the fields in their order and the body, as NIO's
/// `HTTPResponseEncoder` wrote them from the parts `HTTP1ToHTTPServerCodec` converted (the same
/// reason phrases, the same framing rules), without the two handlers each part crossed and
/// the buffers each wrote.
///
/// Framing: a status that has no body (1xx, 204, 304) and the answer to `CONNECT` go without
/// `Content-Length` and `Transfer-Encoding`; a response that names its `Content-Length` keeps
/// it (and loses any `Transfer-Encoding`); one that does not gets the length of its body, which
/// is whole here (NIO chunked such a body, not knowing its end), or is chunked when it has
/// trailers. The answer to `HEAD` or `CONNECT` carries no body, its head as it is.
enum HTTP1ResponseBytes {
    static func write(_ head: HTTPResponse, body: GatheredBody, answering method: HTTPRequest.Method, into buffer: inout ByteBuffer) {
        let code = head.status.code
        // NIO's status: its reason phrase for the code, and its rule for which statuses have no body.
        let status = HTTPResponseStatus(statusCode: code, reasonPhrase: head.status.reasonPhrase)
        let connect = method == .connect
        let bodiless = connect || method == .head
        let mayHaveBody = !connect && status.mayHaveResponseBody
        let length = body.buffers.reduce(0) { $0 + $1.readableBytes }
        let namesLength = head.headerFields.contains { $0.name == .contentLength }
        let chunked = mayHaveBody && !namesLength && body.trailers != nil

        buffer.reserveCapacity(minimumWritableBytes: 160 + head.headerFields.count * 40 + (bodiless ? 0 : length + 16))
        buffer.writeStaticString("HTTP/1.1 ")
        buffer.writeString(String(code))
        buffer.writeStaticString(" ")
        buffer.writeString(status.reasonPhrase)
        buffer.writeStaticString("\r\n")
        for field in head.headerFields {
            if field.name == .transferEncoding, !bodiless || !mayHaveBody || namesLength { continue }
            if field.name == .contentLength, !mayHaveBody || chunked { continue }
            Self.write(field.name.rawName, field.value, into: &buffer)
        }
        if mayHaveBody, !bodiless, !namesLength {
            if chunked {
                Self.write("transfer-encoding", "chunked", into: &buffer)
            } else {
                Self.write("content-length", String(length), into: &buffer)
            }
        }
        buffer.writeStaticString("\r\n")
        guard mayHaveBody, !bodiless else { return }
        if chunked, length > 0 {
            buffer.writeString(String(length, radix: 16))
            buffer.writeStaticString("\r\n")
        }
        for var part in body.buffers { buffer.writeBuffer(&part) }
        if chunked {
            if length > 0 { buffer.writeStaticString("\r\n") }
            buffer.writeStaticString("0\r\n")
            for field in body.trailers ?? [:] { Self.write(field.name.rawName, field.value, into: &buffer) }
            buffer.writeStaticString("\r\n")
        }
    }

    private static func write(_ name: String, _ value: String, into buffer: inout ByteBuffer) {
        buffer.writeString(name)
        buffer.writeStaticString(": ")
        buffer.writeString(value)
        buffer.writeStaticString("\r\n")
    }
}
