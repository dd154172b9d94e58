import CHiredis

/// A command's arguments packed into one buffer with their lengths, ready to hand to
/// hiredis's binary-safe `*Argv` functions.
struct RedisCommand: Sendable {
    private var bytes: [UInt8] = []
    private var lengths: [Int] = []

    var isEmpty: Bool { lengths.isEmpty }

    init(_ arguments: [String]) {
        bytes.reserveCapacity(arguments.reduce(1) { $0 + $1.utf8.count })
        lengths.reserveCapacity(arguments.count)
        for argument in arguments {
            append(argument.utf8)
        }
        bytes.append(0)  // keeps the base address valid when every argument is empty
    }

    init(_ arguments: [RedisArgument]) {
        lengths.reserveCapacity(arguments.count)
        for argument in arguments {
            switch argument {
            case .string(let text): append(text.utf8)
            case .bytes(let raw): append(raw)
            }
        }
        bytes.append(0)
    }

    private mutating func append(_ argument: some Collection<UInt8>) {
        bytes.append(contentsOf: argument)
        lengths.append(argument.count)
    }

    /// Calls `body` with `argc`, `argv` and `argvlen` as hiredis expects them.
    func withArgv<Result>(
        _ body: (Int32, UnsafeMutablePointer<UnsafePointer<CChar>?>, UnsafePointer<Int>) -> Result
    ) -> Result {
        bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                lengths.withUnsafeBufferPointer { lengthBuffer in
                    withUnsafeTemporaryAllocation(of: UnsafePointer<CChar>?.self, capacity: lengths.count) { argv in
                        var offset = 0
                        for (index, length) in lengths.enumerated() {
                            argv[index] = UnsafePointer(chars.baseAddress! + offset)
                            offset += length
                        }
                        return body(Int32(lengths.count), argv.baseAddress!, lengthBuffer.baseAddress!)
                    }
                }
            }
        }
    }
}
