import NIOCore
import NIOPosix
import Testing

@testable import ServiceProtocol

@Suite struct EventLoopTaskExecutorTests {
    actor Counter {
        var value = 0
        func increment() -> Int {
            self.value += 1
            return self.value
        }
    }

    /// Under the executor, tasks run on the group's loops, children inherit it, and a call of a
    /// nonisolated async function (which hops to the generic executor on entry) continues on the
    /// spot: a hundred of them enqueue almost nothing (run as an event loop's serial executor
    /// instead, as NIO's global executor runs jobs, each such hop was an enqueue). An actor's
    /// methods still run, one at a time.
    @Test func tasksRunOnTheLoopsAndHopsContinueWithoutEnqueueing() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let executor = EventLoopTaskExecutor(group: group)
        let loops = Set(group.makeIterator().map { ObjectIdentifier($0) })
        let counter = Counter()
        let (onLoop, hops, childrenOnLoops) = await withTaskExecutorPreference(executor) {
            let onLoop = MultiThreadedEventLoopGroup.currentEventLoop.map { loops.contains(ObjectIdentifier($0)) } ?? false
            let step: @Sendable (Int) async -> Int = nextStep
            let before = executor.enqueuedJobs.load(ordering: .relaxed)
            var value = 0
            for _ in 0..<100 { value = await step(value) }
            let hops = executor.enqueuedJobs.load(ordering: .relaxed) - before
            for _ in 0..<100 { _ = await counter.increment() }
            let childrenOnLoops = await withTaskGroup(of: Bool.self) { children in
                for _ in 0..<8 {
                    children.addTask {
                        MultiThreadedEventLoopGroup.currentEventLoop.map { loops.contains(ObjectIdentifier($0)) } ?? false
                    }
                }
                return await children.reduce(true) { $0 && $1 }
            }
            return (onLoop, hops, childrenOnLoops)
        }
        #expect(onLoop)
        #expect(hops < 10, "\(hops) enqueues for 100 calls")
        #expect(childrenOnLoops)
        #expect(await counter.value == 100)
        try await group.shutdownGracefully()
    }

    /// A task resumed by a future completed on one loop continues on that loop.
    @Test func aResumedTaskContinuesOnTheLoopThatResumedIt() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let executor = EventLoopTaskExecutor(group: group)
        let loop = group.next()
        let resumedOn = try await withTaskExecutorPreference(executor) {
            let promise = loop.makePromise(of: Int.self)
            loop.scheduleTask(in: .milliseconds(10)) { promise.succeed(1) }
            _ = try await promise.futureResult.get()
            return MultiThreadedEventLoopGroup.currentEventLoop.map { ObjectIdentifier($0) }
        }
        #expect(resumedOn == ObjectIdentifier(loop))
        try await group.shutdownGracefully()
    }
}

/// A nonisolated async function: its entry hops to the generic executor.
@inline(never)
@Sendable func nextStep(_ value: Int) async -> Int {
    value + 1
}
