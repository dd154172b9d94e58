import NIOCore
import NIOPosix
import Synchronization

/// The task executor every service's tasks prefer (`ServiceMain` runs its services under it,
/// and `RPCServer` each request): a job runs on the event loop of the thread that enqueued it
/// (any loop of the group when enqueued from elsewhere), as the generic executor with this
/// executor preferred.
///
/// Why not only NIO's global executor (`EventLoops.install`): NIO runs each job as its event
/// loop's serial executor, so every later hop to nonisolated code in that job (each `await`
/// of a middleware, route or client call, some 50 in a request) could not continue inline:
/// the runtime enqueued the task on the loop again and ran it on a later pass, one enqueue per
/// hop (`swift_task_switch` and `flagAsAndEnqueueOnExecutor` were a fifth of the gateway's
/// samples). Run as the generic executor with the same task executor preferred, such a hop
/// continues on the spot; a task is enqueued only when it really waited (I/O, a lock, a
/// continuation).
public final class EventLoopTaskExecutor: TaskExecutor {
    /// Over NIO's singleton group, where Swift Concurrency runs in the services.
    public static let shared = EventLoopTaskExecutor()

    private let group: MultiThreadedEventLoopGroup
    /// How many jobs were enqueued: a task that waited and resumed is one.
    let enqueuedJobs = Atomic<Int>(0)

    public init(group: MultiThreadedEventLoopGroup = .singleton) {
        self.group = group
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        self.enqueuedJobs.add(1, ordering: .relaxed)
        let job = UnownedJob(job)
        let executor = self.asUnownedTaskExecutor()
        self.group.any().execute {
            job.runSynchronously(on: executor)
        }
    }
}
