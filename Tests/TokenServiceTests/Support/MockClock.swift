import Foundation
import Synchronization
import TokenService

/// A clock the test moves by hand, so grace windows and expiry are tested without sleeping.
final class MockClock: Sendable {
    private let current: Mutex<Date>

    init(_ start: Date = Date()) {
        self.current = Mutex(start)
    }

    var now: Date { self.current.withLock { $0 } }

    func advance(by seconds: TimeInterval) {
        self.current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }

    var tokenClock: TokenClock {
        TokenClock { self.now }
    }
}
