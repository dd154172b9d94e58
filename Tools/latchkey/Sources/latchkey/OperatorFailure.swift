import ArgumentParser
import Foundation
import ServiceProtocol

/// The exit statuses a script can rely on (listed in `latchkey --help` and the README).
enum OperatorExit {
    static let failed: Int32 = 1
    static let configuration: Int32 = 2
    static let notFound: Int32 = 3
    static let unavailable: Int32 = 4
}

/// Runs `body`; a failure is one line on standard error (`latchkey: <code>: <message>`) and the
/// exit status its kind has.
func reportingFailures(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let error as RPCError {
        let status: Int32 =
            switch error.code {
            case .notFound: OperatorExit.notFound
            case .serviceUnavailable, .deadlineExceeded: OperatorExit.unavailable
            default: OperatorExit.failed
            }
        FileHandle.standardError.write(Data("latchkey: \(error.code.rawValue): \(error.message)\n".utf8))
        throw ExitCode(status)
    } catch let error as OperatorSettingError {
        FileHandle.standardError.write(Data("latchkey: \(error.message)\n".utf8))
        throw ExitCode(OperatorExit.configuration)
    }
}

/// A setting the command needs is missing or malformed.
struct OperatorSettingError: Error {
    var message: String
}
