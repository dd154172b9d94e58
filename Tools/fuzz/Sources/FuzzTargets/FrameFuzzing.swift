import Foundation
import NIOCore
import ServiceProtocol

/// The bytes a backend reads from a connection: split into frames by `RPCFrameDecoder`, each
/// read as a request by the envelope scanner. Properties: nothing traps; a frame the scanner
/// accepts, when it is JSON a full parser reads, has the same `id` and `method` there (no
/// reading of the envelope that another parser would disagree with); the `params` slice is
/// inside the frame.
enum FrameFuzzing {
    static let maximumFrameSize = 1 << 16

    static func run(_ bytes: UnsafeRawBufferPointer) {
        var stream = ByteBuffer(bytes: bytes)
        var decoder = RPCFrameDecoder(maximumFrameSize: Self.maximumFrameSize)
        while true {
            let frame: ByteBuffer?
            do {
                frame = try decoder.decode(buffer: &stream)
            } catch {
                return  // a frame over the limit: the connection is closed
            }
            guard let frame else { return }
            FuzzCheck.require(frame.readableBytes <= Self.maximumFrameSize, "a frame over the limit was read")
            Self.check(frame)
        }
    }

    static func check(_ frame: ByteBuffer) {
        guard case .success(let request) = EnvelopeFuzzing.readRequest(frame) else { return }
        if let params = request.params {
            FuzzCheck.require(params.readableBytes <= frame.readableBytes, "params larger than the frame")
        }
        guard let object = try? JSONSerialization.jsonObject(with: Data(frame.readableBytesView)) as? [String: Any] else { return }
        // The scanner reads only digits, so the parser's number is an integer; above Int64's
        // range Foundation may hold it as a Double, which cannot be compared exactly.
        if let id = object["id"] as? NSNumber, request.id <= UInt64(Int64.max) {
            FuzzCheck.require(id.uint64Value == request.id, "id \(request.id), a JSON parser reads \(id)")
        }
        if let method = object["method"] as? String {
            FuzzCheck.require(method == request.method, "method \(request.method), a JSON parser reads \(method)")
        }
    }
}
