import Foundation
import FuzzTargets
import Testing

/// Every input of the seed corpus (Tools/fuzz/corpus/<target>), and every crash a fuzzing run
/// saved there once fixed, goes through its target in every test run: a regression of a
/// property fails the run (the target stops the process). `scripts/fuzz` does the fuzzing.
@Suite struct FuzzCorpusTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Tools/fuzz/corpus")

    @Test(arguments: FuzzTarget.allCases)
    func everySavedInputPassesItsTarget(_ target: FuzzTarget) async throws {
        let folder = Self.corpus.appendingPathComponent(target.rawValue)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(names.count >= 3, "the seed corpus of \(target.rawValue) is in \(folder.path)")
        let inputs = try names.map { try Data(contentsOf: folder.appendingPathComponent($0)) }
        await Self.onOwnThread {
            for data in inputs { data.withUnsafeBytes { target.run($0) } }
        }
    }

    /// Runs `body` on a thread of its own, as libFuzzer does: a target waits for async work
    /// with a semaphore (`Blocking.run`), which on the concurrency pool's few threads would
    /// block the very threads that work needs (two parallel cases hung the test run).
    static func onOwnThread(_ body: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let thread = Thread {
                body()
                done.resume()
            }
            thread.stackSize = 8 << 20
            thread.start()
        }
    }
}
