/// One page of a list: its items and the cursor of the next page (nil after the last).
public struct Page<Item: Sendable>: Sendable {
    public var items: [Item]
    public var nextCursor: String?

    public init(items: [Item], nextCursor: String?) {
        self.items = items
        self.nextCursor = nextCursor
    }
}

extension Page: Decodable where Item: Decodable {
    enum CodingKeys: String, CodingKey {
        case items
        case nextCursor = "next_cursor"
    }
}

/// Every item of a paginated list, fetched a page at a time as the loop asks for more.
///
/// ```swift
/// for try await favorite in client.favorites() { print(favorite.itemID) }
/// ```
public struct PagedSequence<Item: Sendable>: AsyncSequence, Sendable {
    public typealias Element = Item

    let fetch: @Sendable (_ cursor: String?) async throws -> Page<Item>

    public struct AsyncIterator: AsyncIteratorProtocol {
        let fetch: @Sendable (_ cursor: String?) async throws -> Page<Item>
        var buffer: [Item] = []
        var index = 0
        var cursor: String?
        var finished = false

        public mutating func next() async throws -> Item? {
            while self.index == self.buffer.count {
                if self.finished { return nil }
                try Task.checkCancellation()
                let page = try await self.fetch(self.cursor)
                self.buffer = page.items
                self.index = 0
                self.cursor = page.nextCursor
                self.finished = page.nextCursor == nil
            }
            defer { self.index += 1 }
            return self.buffer[self.index]
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(fetch: self.fetch)
    }
}
