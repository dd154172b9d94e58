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
