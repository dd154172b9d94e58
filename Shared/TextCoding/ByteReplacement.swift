extension String {
    /// Every occurrence of `target`'s UTF-8 bytes replaced by `replacement`'s, left to right and
    /// not overlapping, wherever characters begin and end: a password is taken out of a message
    /// even when a combining mark follows it, a LIKE pattern's `_` is escaped even under an
    /// accent. (The standard library's `replacing(_:with:)` matches whole characters.)
    public func replacingBytes(of target: String, with replacement: String) -> String {
        let needle = Array(target.utf8)
        guard !needle.isEmpty else { return self }
        let haystack = Array(self.utf8)
        var output = [UInt8]()
        output.reserveCapacity(haystack.count)
        var index = 0
        while index < haystack.count {
            if index + needle.count <= haystack.count, haystack[index] == needle[0], haystack[index..<(index + needle.count)].elementsEqual(needle) {
                output.append(contentsOf: replacement.utf8)
                index += needle.count
            } else {
                output.append(haystack[index])
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
