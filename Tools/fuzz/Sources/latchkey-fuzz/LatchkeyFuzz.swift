import FuzzTargets

#if FUZZING
// Built by scripts/fuzz with `-sanitize=fuzzer,address -DFUZZING`: libFuzzer's own main runs
// the target that LATCHKEY_FUZZ_TARGET names on the inputs it generates.
import Foundation

private let target: FuzzTarget = {
    let name = ProcessInfo.processInfo.environment["LATCHKEY_FUZZ_TARGET"] ?? ""
    guard let target = FuzzTarget(rawValue: name) else {
        fatalError("LATCHKEY_FUZZ_TARGET must be one of \(FuzzTarget.allCases.map(\.rawValue))")
    }
    return target
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func latchkeyFuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    target.run(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
#else
// An ordinary build: `latchkey-fuzz TARGET FILE...` runs the target on saved inputs (a crash
// libFuzzer found, or the corpus), without the fuzzing runtime.
import Foundation

@main
enum LatchkeyFuzz {
    static func main() throws {
        let arguments = CommandLine.arguments.dropFirst()
        guard let name = arguments.first, let target = FuzzTarget(rawValue: name), arguments.count > 1 else {
            FileHandle.standardError.write(Data("usage: latchkey-fuzz \(FuzzTarget.allCases.map(\.rawValue).joined(separator: "|")) FILE...\n".utf8))
            exit(2)
        }
        for path in arguments.dropFirst() {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            data.withUnsafeBytes { target.run($0) }
            print("\(name): \(path): ok")
        }
    }
}
#endif
