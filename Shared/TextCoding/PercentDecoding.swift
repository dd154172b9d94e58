/// `%XX` escapes in URL text (a path segment, a Redis URL's user and password), decoded as
/// Foundation's `removingPercentEncoding` does: the services link FoundationEssentials only,
/// whose strings have no such method.
public enum PercentDecoding {
    /// `text` with each `%XX` replaced by its byte; nil when a `%` is not followed by two hex
    /// digits or the bytes are not UTF-8.
    public static func decode(_ text: some StringProtocol) -> String? {
        var bytes = [UInt8]()
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(HexDigit.value), let low = iterator.next().flatMap(HexDigit.value) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
