import Foundation
import Synchronization

/// The bench users and catalogue, and cheap random picks from them.
enum BenchData {
    static let users = (0..<50).map { _ in UUID() }
    static let catalog = (0..<1000).map { String(format: "article-%05d", $0) }

    static func randomIDs(_ count: Int) -> [String] {
        var random = FastRandom()
        return (0..<count).map { _ in catalog.randomElement(using: &random)! }
    }

    static func randomUser() -> UUID {
        var random = FastRandom()
        return users.randomElement(using: &random)!
    }

    static func randomIndex(_ count: Int) -> Int {
        var random = FastRandom()
        return Int.random(in: 0..<count, using: &random)
    }
}

/// A cheap random number generator for picking users and ids: the system generator makes a
/// syscall per number, which would make the load generator the bottleneck.
struct FastRandom: RandomNumberGenerator {
    private static let seeds = Atomic<UInt64>(UInt64.random(in: 1...UInt64.max))

    /// Each generator starts from the next of a shared counter, mixed (splitmix64).
    var state: UInt64 = {
        var z = Self.seeds.wrappingAdd(0x9E37_79B9_7F4A_7C15, ordering: .relaxed).newValue
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return (z ^ (z >> 31)) | 1
    }()

    mutating func next() -> UInt64 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return state
    }
}
