import Foundation

/// The fuzz targets: each reads bytes an attacker controls, the way the product does, and
/// checks properties of what comes out. A failed property stops the process (`FuzzCheck`), which
/// libFuzzer records as a crash with its input. `scripts/fuzz` runs them; the seed corpus is in
/// `Tools/fuzz/corpus/<name>`; `FuzzCorpusTests` replays the corpus in every test run.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// The RPC frame decoder and the envelope scanner behind every backend's port.
    case frames
    /// The RPC layer's JSON decoder, against Foundation's (differential).
    case jsonDecoder = "json-decoder"
    /// The gateway's reader of a client's JSON body.
    case requestBody = "request-body"
    /// The gateway's access-token check: parsing, key choice, signature, claims.
    case accessToken = "access-token"

    /// Runs the target on one input.
    public func run(_ bytes: UnsafeRawBufferPointer) {
        switch self {
        case .frames: FrameFuzzing.run(bytes)
        case .jsonDecoder: JSONDecoderFuzzing.run(bytes)
        case .requestBody: RequestBodyFuzzing.run(bytes)
        case .accessToken: AccessTokenFuzzing.shared.run(bytes)
        }
    }
}

/// A property of a target's output.
enum FuzzCheck {
    static func require(_ condition: Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) {
        guard !condition else { return }
        fatalError("fuzz property failed: \(message())", file: file, line: line)
    }
}
