import Foundation

extension UUID {
    /// The UUID `text` spells as `8-4-4-4-12` hexadecimal digits (either case), as
    /// `UUID(uuidString:)` reads it, without its `sscanf` per call: ids are read from every RPC
    /// request's parameters and from Postgres rows. Nil for anything else.
    public init?(text: String) {
        var text = text
        let uuid: uuid_t? = text.withUTF8 { Self.parse($0) }
        guard let uuid else { return nil }
        self.init(uuid: uuid)
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> uuid_t? {
        guard bytes.count == 36, bytes[8] == UInt8(ascii: "-"), bytes[13] == UInt8(ascii: "-"),
            bytes[18] == UInt8(ascii: "-"), bytes[23] == UInt8(ascii: "-")
        else { return nil }
        var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let complete = withUnsafeMutableBytes(of: &uuid) { out -> Bool in
            var index = 0
            for byte in 0..<16 {
                if index == 8 || index == 13 || index == 18 || index == 23 { index += 1 }
                guard let high = HexDigit.value(bytes[index]), let low = HexDigit.value(bytes[index + 1]) else { return false }
                out[byte] = high << 4 | low
                index += 2
            }
            return true
        }
        return complete ? uuid : nil
    }
}
