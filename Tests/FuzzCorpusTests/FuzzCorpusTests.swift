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
    func everySavedInputPassesItsTarget(_ target: FuzzTarget) throws {
        let folder = Self.corpus.appendingPathComponent(target.rawValue)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(names.count >= 3, "the seed corpus of \(target.rawValue) is in \(folder.path)")
        for name in names {
            let data = try Data(contentsOf: folder.appendingPathComponent(name))
            data.withUnsafeBytes { target.run($0) }
        }
    }
}
