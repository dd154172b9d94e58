import Foundation
import NIOCore
import NIOPosix

/// Runs Swift Concurrency on the NIO event loops, as every service's `ServiceMain` does, with
/// `EVENT_LOOP_THREADS` loops when set (default: one per core). Call first thing in `main`.
public func installEventLoops() {
    if let threads = ProcessInfo.processInfo.environment["EVENT_LOOP_THREADS"].flatMap(Int.init), threads > 0 {
        NIOSingletons.groupLoopCountSuggestion = threads
    }
    _ = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
}
