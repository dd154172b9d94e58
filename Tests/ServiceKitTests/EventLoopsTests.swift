import Testing

@testable import ServiceKit

@Suite struct EventLoopsTests {
    @Test func defaultIsHalfTheAvailableCoresAndAtLeastOne() throws {
        #expect(EventLoops.defaultCount(cores: 1) == 1)
        #expect(EventLoops.defaultCount(cores: 2) == 1)
        #expect(EventLoops.defaultCount(cores: 3) == 1)
        #expect(EventLoops.defaultCount(cores: 8) == 4)
        // The gateway's share: every CPU.
        #expect(EventLoops.defaultCount(cores: 1, share: .all) == 1)
        #expect(EventLoops.defaultCount(cores: 2, share: .all) == 2)
        #expect(try EventLoops.count(EnvironmentReader([:]), cores: 8, share: .all) == 8)
        #expect(try EventLoops.count(EnvironmentReader(["EVENT_LOOP_THREADS": "1"]), cores: 8, share: .all) == 1)
        #expect(try EventLoops.count(EnvironmentReader([:]), cores: 16) == 8)
    }

    @Test func eventLoopThreadsOverridesTheDefaultWithinItsRange() throws {
        #expect(try EventLoops.count(EnvironmentReader(["EVENT_LOOP_THREADS": "3"]), cores: 2) == 3)
        #expect((try? EventLoops.count(EnvironmentReader(["EVENT_LOOP_THREADS": "0"]), cores: 2)) == nil)
    }
}
