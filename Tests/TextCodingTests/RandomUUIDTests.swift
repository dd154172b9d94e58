import Foundation
import Testing
import TextCoding

@Suite struct RandomUUIDTests {
    @Test func randomUUIDsAreVersion4AndDistinct() {
        let ids = (0..<1_000).map { _ in UUID.random() }
        #expect(Set(ids).count == ids.count)
        for id in ids {
            let text = id.uuidString
            // xxxxxxxx-xxxx-4xxx-[89AB]xxx-xxxxxxxxxxxx
            #expect(Array(text)[14] == "4")
            #expect("89AB".contains(Array(text)[19]))
            #expect(UUID(uuidString: text) == id)
        }
    }
}

@Suite struct RandomPoolTests {
    /// Ids made on four threads at once across many refills of the pool (256 ids each) are all
    /// distinct: no bytes are handed out twice. Bits set at random are about half of all.
    @Test func idsMadeAtOnceOnManyThreadsAcrossRefillsAreDistinct() async {
        let ids = await withTaskGroup(of: [UUID].self) { group in
            for _ in 0..<4 {
                group.addTask { (0..<3_000).map { _ in UUID.random() } }
            }
            return await group.reduce(into: []) { $0 += $1 }
        }
        #expect(ids.count == 12_000)
        #expect(Set(ids).count == ids.count)
        let ones = ids.reduce(0) { count, id in
            withUnsafeBytes(of: id.uuid) { raw in count + raw.reduce(0) { $0 + $1.nonzeroBitCount } }
        }
        let share = Double(ones) / Double(ids.count * 128)
        #expect(share > 0.48 && share < 0.52, "\(share)")
    }
}
