import Foundation
import FuzzTargets

#if FUZZING
// Built by scripts/fuzz (`--sanitize fuzzer --sanitize address -Xswiftc -DFUZZING`): libFuzzer's
// own main calls this on every input it generates, for the target LATCHKEY_FUZZ_TARGET names.
private let target: FuzzTarget = {
    let name = ProcessInfo.processInfo.environment["LATCHKEY_FUZZ_TARGET"] ?? ""
    guard let target = FuzzTarget(rawValue: name) else {
        fatalError("LATCHKEY_FUZZ_TARGET must be one of \(FuzzTarget.allCases.map(\.rawValue))")
    }
    return target
}()

/// Before fuzzing starts: with LATCHKEY_FUZZ_LIST set, prints every target's name, one a line,
/// and exits, so that `scripts/fuzz` runs the targets this binary has (`FuzzTarget.allCases`).
@_cdecl("LLVMFuzzerInitialize")
public func latchkeyFuzzInitialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    if ProcessInfo.processInfo.environment["LATCHKEY_FUZZ_LIST"] != nil {
        print(FuzzTarget.allCases.map(\.rawValue).joined(separator: "\n"))
        exit(0)
    }
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func latchkeyFuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    target.run(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
#else
/// `latchkey-fuzz TARGET FILE...` in an ordinary build: runs the target on saved inputs (a
/// crash libFuzzer found, or the corpus) without the fuzzing runtime.
@main
enum LatchkeyFuzz {
    static func main() {
        let arguments = CommandLine.arguments.dropFirst()
        guard let name = arguments.first, let target = FuzzTarget(rawValue: name), arguments.count > 1 else {
            FileHandle.standardError.write(Data("usage: latchkey-fuzz \(FuzzTarget.allCases.map(\.rawValue).joined(separator: "|")) FILE...\n".utf8))
            exit(2)
        }
        for path in arguments.dropFirst() {
            guard let data = FileManager.default.contents(atPath: path) else {
                FileHandle.standardError.write(Data("latchkey-fuzz: cannot read \(path)\n".utf8))
                exit(1)
            }
            data.withUnsafeBytes { target.run($0) }
            print("\(name): \(path): ok")
        }
    }
}
#endif
