import Testing

/// Thrown by `waitUntil` after it has recorded that its condition never held.
public struct ConditionTimedOut: Error, CustomStringConvertible {
    public var condition: String
    public var timeout: Duration
    public var description: String { "\(condition): not true after \(timeout)" }
}

/// Waits until `condition` holds, asking again every `interval`. A test waits on the thing it
/// needs, never a fixed time: fast machines go on at once, slow ones get up to `timeout`, after
/// which the test fails (an issue is recorded at the caller's line) instead of hanging.
public func waitUntil(
    _ what: String, timeout: Duration = .seconds(60), interval: Duration = .milliseconds(20),
    sourceLocation: SourceLocation = #_sourceLocation, _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while try await !condition() {
        guard ContinuousClock.now < deadline else {
            let error = ConditionTimedOut(condition: what, timeout: timeout)
            Issue.record("\(error)", sourceLocation: sourceLocation)
            throw error
        }
        try await Task.sleep(for: interval)
    }
}

/// Runs `body`, which waits for something (a message, a task's end); when that has not come
/// within `timeout`, `body` is cancelled and the test fails instead of hanging.
public func withDeadline<T: Sendable>(
    _ what: String, timeout: Duration = .seconds(60), sourceLocation: SourceLocation = #_sourceLocation,
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: timeout)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else {
            let error = ConditionTimedOut(condition: what, timeout: timeout)
            Issue.record("\(error)", sourceLocation: sourceLocation)
            throw error
        }
        return value
    }
}
