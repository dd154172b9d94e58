#if canImport(Glibc)
import Glibc
#endif
import Foundation
import TestSupport
import Testing

@testable import ServiceKit

/// `LogOutput` on a pipe: what a process's log handlers write reaches the descriptor in order,
/// at once for a warning, within the gather delay otherwise, and at once when the buffer fills.
@Suite struct LogOutputTests {
    /// A pipe whose read end never blocks and holds 1 MiB, and the output writing to it.
    private struct Pipe {
        let read: Int32
        let output: LogOutput

        init(awakeWhileQuiet: Duration = LogOutput.awakeWhileQuiet) throws {
            var ends: [Int32] = [0, 0]
            try #require(pipe(&ends) == 0)
            _ = fcntl(ends[0], F_SETFL, fcntl(ends[0], F_GETFL) | O_NONBLOCK)
            _ = fcntl(ends[1], 1031 /* F_SETPIPE_SZ */, 1 << 20)
            self.read = ends[0]
            self.output = LogOutput(descriptor: ends[1], awakeWhileQuiet: awakeWhileQuiet)
        }

        /// Everything readable now.
        func available() -> String {
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = chunk.withUnsafeMutableBytes { Glibc.read(self.read, $0.baseAddress, $0.count) }
                guard count > 0 else { break }
                bytes.append(contentsOf: chunk[0..<count])
            }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    private func line(_ text: String) -> [UInt8] { Array((text + "\n").utf8) }

    @Test func aWarningIsWrittenAtOnceAfterTheLinesBeforeIt() throws {
        let pipe = try Pipe()
        pipe.output.write(self.line("one"), immediately: false)
        pipe.output.write(self.line("two"), immediately: false)
        pipe.output.write(self.line("warning"), immediately: true)
        #expect(pipe.available() == "one\ntwo\nwarning\n")
    }

    @Test func linesBelowWarningArriveInOrderWithoutAFlush() async throws {
        let pipe = try Pipe()
        for number in 1...5 { pipe.output.write(self.line("line \(number)"), immediately: false) }
        var seen = ""
        try await waitUntil("the five lines arrive", interval: .milliseconds(5)) {
            seen += pipe.available()
            return seen.count >= 35
        }
        #expect(seen == (1...5).map { "line \($0)\n" }.joined())
    }

    /// Awake, the flusher writes on its own clock; after the quiet time it sleeps, and the next
    /// line wakes it (and arrives) as the first did.
    @Test func theFlusherSleepsWhenLinesStopAndTheNextLineWakesIt() async throws {
        let pipe = try Pipe(awakeWhileQuiet: .milliseconds(50))
        #expect(!pipe.output.flusherAwake)
        var seen = ""
        for round in 1...2 {
            pipe.output.write(self.line("round \(round)"), immediately: false)
            #expect(pipe.output.flusherAwake)
            try await waitUntil("round \(round)'s line arrives", interval: .milliseconds(5)) {
                seen += pipe.available()
                return seen.hasSuffix("round \(round)\n")
            }
            try await waitUntil("the flusher sleeps after 50 ms without a line", interval: .milliseconds(5)) {
                !pipe.output.flusherAwake
            }
        }
        #expect(seen == "round 1\nround 2\n")
    }

    /// Lines that keep coming keep the flusher awake: none of them has to wake it. (The quiet
    /// time is long: under a busy test run the 15 ms pauses can stretch to most of a second.)
    @Test func steadyLinesKeepTheFlusherAwake() async throws {
        let pipe = try Pipe(awakeWhileQuiet: .seconds(60))
        for number in 1...20 {
            pipe.output.write(self.line("line \(number)"), immediately: false)
            try await Task.sleep(for: .milliseconds(15))
            #expect(pipe.output.flusherAwake)
        }
        var seen = ""
        try await waitUntil("the twenty lines arrive", interval: .milliseconds(5)) {
            seen += pipe.available()
            return seen.hasSuffix("line 20\n")
        }
        #expect(seen == (1...20).map { "line \($0)\n" }.joined())
    }

    @Test func aFullBufferIsWrittenAtOnce() throws {
        let pipe = try Pipe()
        let line = self.line(String(repeating: "x", count: 1023))
        let count = 2 * LogOutput.bufferLimit / line.count
        for _ in 0..<count { pipe.output.write(line, immediately: false) }
        // Less than the limit can be left waiting, whenever the flusher ran meanwhile.
        #expect(pipe.available().utf8.count > count * line.count - LogOutput.bufferLimit)
    }

    @Test func flushWritesWhatIsBuffered() throws {
        let pipe = try Pipe()
        pipe.output.write(self.line("kept"), immediately: false)
        pipe.output.flush()
        #expect(pipe.available() == "kept\n")
    }
}

/// The flusher thread says what it is in a thread list, rather than carrying the name of the
/// libdispatch worker that started it.
@Suite struct LogOutputThreadTests {
    @Test func theFlusherThreadIsNamed() async throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]) }
        _ = LogOutput(descriptor: ends[1])
        try await waitUntil("a thread named log-flusher") { try currentThreadNames().contains("log-flusher") }
    }
}
