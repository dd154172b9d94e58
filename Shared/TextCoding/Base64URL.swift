/// Unpadded base64url (RFC 4648 section 5), as JOSE, the refresh tokens and the list cursors
/// use it. Written out rather than built on Foundation's base64 plus string replacements:
/// every refresh decodes one token and encodes another, every list page encodes a cursor,
/// and those replacements cost more than the coding itself.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        let input = Array(bytes)
        var output = [UInt8]()
        output.reserveCapacity((input.count * 4 + 2) / 3)
        var index = 0
        while index < input.count {
            let count = min(3, input.count - index)
            var chunk = UInt32(input[index]) << 16
            if count > 1 { chunk |= UInt32(input[index + 1]) << 8 }
            if count > 2 { chunk |= UInt32(input[index + 2]) }
            for sextet in 0...count {
                output.append(alphabet[Int(chunk >> (18 - 6 * UInt32(sextet)) & 63)])
            }
            index += count
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes of `text`; nil for padding, a character outside the alphabet, a length no
    /// encoding has, or leftover bits that are not zero (a non-canonical spelling).
    public static func decode(_ text: String) -> [UInt8]? {
        var output = [UInt8]()
        output.reserveCapacity(text.utf8.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in text.utf8 {
            guard let value = sextet(byte) else { return nil }
            accumulator = accumulator << 6 | value
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        guard bits < 6, accumulator == 0 else { return nil }
        return output
    }

    private static func sextet(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): UInt32(byte - UInt8(ascii: "A"))
        case UInt8(ascii: "a")...UInt8(ascii: "z"): UInt32(byte - UInt8(ascii: "a")) + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0")) + 52
        case UInt8(ascii: "-"): 62
        case UInt8(ascii: "_"): 63
        default: nil
        }
    }
}
