import Dispatch
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import SystemThreads

/// Standard output for log lines, shared by the log handlers of a process.
///
/// A line below `warning` waits in a buffer for at most `gatherDelay` (10 ms), so that a busy
/// process writes many lines with one `write`: the gateway logs every request at the default
/// level, and a `write` per line cost about 3 % of its CPU, and on a pipe (a container's
/// standard output) woke the reader once per line. A `warning` or worse is written at once,
/// after every line buffered before it, and so is a buffer that reached `bufferLimit`. What is
/// buffered is written when the process exits through `exit` (as `ServiceMain` does); a process
/// killed outright loses at most the last `gatherDelay` of lines below `warning`.
///
/// A lock, not an actor: log lines come from any thread, synchronous code included, and must not hop.
final class LogOutput: Sendable {
    /// The process's standard output; what it holds is written when the process exits.
    static let standard: LogOutput = {
        let output = LogOutput(descriptor: 1)
        atexit { LogOutput.standard.flush() }
        return output
    }()

    static let gatherDelay: Duration = .milliseconds(10)
    static let bufferLimit = 64 * 1024

    private let descriptor: Int32
    /// Lines not yet written.
    private let pending = Mutex<[UInt8]>([])
    /// Held while bytes taken from `pending` are written, so that lines leave in their order.
    private let writing = Mutex(())
    /// Signalled when `pending` stops being empty: the flusher wakes, waits `gatherDelay`, writes.
    private let filled = DispatchSemaphore(value: 0)

    /// An output to `descriptor`, with a flusher thread that lives as long as the process.
    init(descriptor: Int32) {
        self.descriptor = descriptor
        NamedThread.start(name: "log-flusher") { [self] in self.runFlusher() }
    }

    /// Queues `line` (a complete line, newline included); `immediately` writes it and everything
    /// before it now.
    func write(_ line: [UInt8], immediately: Bool) {
        if immediately {
            self.flush(then: line)
            return
        }
        let (wasEmpty, full) = self.pending.withLock { pending in
            let wasEmpty = pending.isEmpty
            pending.append(contentsOf: line)
            return (wasEmpty, pending.count >= Self.bufferLimit)
        }
        if full {
            self.flush()
        } else if wasEmpty {
            self.filled.signal()
        }
    }

    /// Writes every buffered line now, then `line` (in the same `write`).
    func flush(then line: [UInt8] = []) {
        self.writing.withLock { _ in
            var bytes = self.takePending()
            bytes.append(contentsOf: line)
            if !bytes.isEmpty { LogLine.write(bytes, to: self.descriptor) }
        }
    }

    /// Empties `pending` and returns what it held.
    private func takePending() -> [UInt8] {
        self.pending.withLock { pending in
            var taken: [UInt8] = []
            swap(&taken, &pending)
            pending.reserveCapacity(taken.count)
            return taken
        }
    }

    private func runFlusher() {
        let delay = Self.gatherDelay.components
        let microseconds = UInt32(delay.seconds * 1_000_000 + delay.attoseconds / 1_000_000_000_000)
        while true {
            self.filled.wait()
            usleep(microseconds)
            self.flush()
        }
    }
}
