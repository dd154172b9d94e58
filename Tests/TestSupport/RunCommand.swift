import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A command a test ran failed; carries its output.
public struct CommandFailed: Error, CustomStringConvertible {
    public let description: String

    public init(description: String) {
        self.description = description
    }
}

/// Runs a command to completion on a Dispatch thread (it blocks), throwing on failure.
/// Uses `posix_spawn` + `waitpid` (Foundation's `Process` may never notice the exit off the
/// main thread) and sends output to a file, not a pipe: a server started by the command
/// inherits it and would hold a pipe open forever.
public func runCommand(_ executable: String, _ arguments: [String]) async throws {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
        DispatchQueue.global().async {
            let outputPath = NSTemporaryDirectory() + "test-command-" + UUID().uuidString
            defer { unlink(outputPath) }
            let status = spawnAndWait(executable, arguments, outputPath: outputPath)
            if status == 0 {
                continuation.resume()
            } else {
                let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
                continuation.resume(throwing: CommandFailed(
                    description: "\(executable) \(arguments.joined(separator: " ")) exited \(status): \(text)"))
            }
        }
    }
}

/// The exit status of the command, or -1 if it could not be started.
private func spawnAndWait(_ executable: String, _ arguments: [String], outputPath: String) -> Int32 {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    guard posix_spawn(&pid, executable, &actions, nil, argv, environ) == 0 else { return -1 }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 {
        guard errno == EINTR else { return -1 }
    }
    // WIFEXITED / WEXITSTATUS
    return status & 0x7f == 0 ? (status >> 8) & 0xff : -1
}
