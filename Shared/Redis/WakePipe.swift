#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A pipe a blocked reader thread also polls, so that another thread can wake it at once
/// (`signal`) instead of the reader checking a flag every few milliseconds. Once signalled it
/// stays readable: every later wait returns at once.
final class WakePipe: Sendable {
    /// The end to poll for `POLLIN`; -1 when the pipe could not be made (then waits only time out).
    let descriptor: Int32
    private let writeEnd: Int32

    init() {
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for end in ends {
                _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            }
        }
        self.descriptor = ends[0]
        self.writeEnd = ends[1]
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
        if writeEnd >= 0 { close(writeEnd) }
    }

    /// Wakes every wait, now and later.
    func signal() {
        guard writeEnd >= 0 else { return }
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)  // a full pipe is already readable
    }

    /// Waits up to `milliseconds` or until signalled; true when signalled.
    @discardableResult
    func wait(milliseconds: Int32) -> Bool {
        var descriptor = pollfd(fd: self.descriptor, events: Int16(POLLIN), revents: 0)
        while true {
            let ready = poll(&descriptor, 1, milliseconds)
            if ready < 0 && errno == EINTR { continue }
            return ready > 0
        }
    }
}
