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
/// A line wakes the flusher only when it sleeps. Awake, it writes what gathered every
/// `gatherDelay` on its own clock, and it goes back to sleep once `awakeWhileQuiet` (1 s) passed
/// without a line: under steady traffic no request pays for waking a thread. That wake-up was
/// on the gateway's path to its answer (the line is queued before the response is written): a
/// `healthz` after a 16 ms pause took about 545 µs at p50 with it and 465 without, in an A/B on
/// a 2-processor VM. The price is up to 100 wake-ups a second of the flusher's own while lines come.
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

    static let awakeWhileQuiet: Duration = .seconds(1)

    /// Lines not yet written, and whether the flusher is awake (writing every `gatherDelay`) or
    /// asleep until a line signals `filled`.
    private struct Pending {
        var bytes: [UInt8] = []
        var flusherAwake = false
    }

    private let descriptor: Int32
    private let quietPeriods: Int
    private let pending = Mutex(Pending())
    /// Held while bytes taken from `pending` are written, so that lines leave in their order.
    private let writing = Mutex(())
    /// Signalled by the line that finds the flusher asleep: it wakes, and writes every `gatherDelay`.
    private let filled = DispatchSemaphore(value: 0)

    /// An output to `descriptor`, with a flusher thread that lives as long as the process and
    /// sleeps after `awakeWhileQuiet` without a line.
    init(descriptor: Int32, awakeWhileQuiet: Duration = LogOutput.awakeWhileQuiet) {
        self.descriptor = descriptor
        self.quietPeriods = max(1, Int((awakeWhileQuiet / Self.gatherDelay).rounded(.up)))
        NamedThread.start(name: "log-flusher") { [self] in self.runFlusher() }
    }

    /// Whether the flusher is awake, writing on its own clock (a line does not wake it).
    var flusherAwake: Bool { self.pending.withLock { $0.flusherAwake } }

    /// Queues `line` (a complete line, newline included); `immediately` writes it and everything
    /// before it now.
    func write(_ line: [UInt8], immediately: Bool) {
        if immediately {
            self.flush(then: line)
            return
        }
        let (wakeFlusher, full) = self.pending.withLock { pending in
            pending.bytes.append(contentsOf: line)
            let wakeFlusher = !pending.flusherAwake
            pending.flusherAwake = true
            return (wakeFlusher, pending.bytes.count >= Self.bufferLimit)
        }
        if full { self.flush() }
        if wakeFlusher { self.filled.signal() }
    }

    /// Writes every buffered line now, then `line` (in the same `write`); says whether it wrote.
    @discardableResult
    func flush(then line: [UInt8] = []) -> Bool {
        self.writing.withLock { _ in
            var bytes = self.takePending()
            bytes.append(contentsOf: line)
            if !bytes.isEmpty { LogLine.write(bytes, to: self.descriptor) }
            return !bytes.isEmpty
        }
    }

    /// Empties `pending` and returns what it held.
    private func takePending() -> [UInt8] {
        self.pending.withLock { pending in
            var taken: [UInt8] = []
            swap(&taken, &pending.bytes)
            pending.bytes.reserveCapacity(taken.count)
            return taken
        }
    }

    /// Sleeps until a line comes, then writes every `gatherDelay` until `quietPeriods` of them
    /// passed without a line, and sleeps again.
    private func runFlusher() {
        let delay = Self.gatherDelay.components
        let microseconds = UInt32(delay.seconds * 1_000_000 + delay.attoseconds / 1_000_000_000_000)
        while true {
            self.filled.wait()
            var quiet = 0
            while quiet < self.quietPeriods || !self.fallAsleepIfNothingCame() {
                usleep(microseconds)
                quiet = self.flush() ? 0 : quiet + 1
            }
        }
    }

    /// Marks the flusher asleep, so that the next line wakes it, unless a line came since its last write.
    private func fallAsleepIfNothingCame() -> Bool {
        self.pending.withLock { pending in
            guard pending.bytes.isEmpty else { return false }
            pending.flusherAwake = false
            return true
        }
    }
}
