import Foundation

/// The names of this process's threads as the kernel keeps them (`/proc/self/task/*/comm`):
/// what `top -H` and `perf` show an operator. A thread that ends while they are read is left out.
public func currentThreadNames() throws -> [String] {
    let tasks = "/proc/self/task"
    return try FileManager.default.contentsOfDirectory(atPath: tasks).compactMap { task in
        (try? String(contentsOfFile: "\(tasks)/\(task)/comm", encoding: .utf8))?.trimmingCharacters(in: .newlines)
    }
}
