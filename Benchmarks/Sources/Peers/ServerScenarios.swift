import Contextual
import Dependencies

// MARK: - A request as a server runs it (targets a and b)

/// A request as a server runs it: a scope per request, a handler made inside it reading 4 `@Injected`
/// (2 values, a built singleton, the scoped unit of work), then the scope's shutdown (target a).
public let serverRequestGroup = "request as a server runs it"

/// A scope with one override, its scoped object built and one value read (target b).
public let scopedObjectGroup = "scope { } + 1 scoped object + 1 read"

/// The groups whose work runs inside a task: the task allocator takes a new slab now and then, so their
/// allocation counts move by a few per 1,000 operations from one run to the next (one allocation more
/// per operation is 1,000 more).
public let groupsRunningInTasks: Set<String> = [serverRequestGroup]

let serverScenarios: [Scenario] = [
    Scenario(serverRequestGroup, .contextual) { iterations in
        let app = ServerFixture.app
        waitFor {
            for index in 0..<iterations {
                try! await app.withScope {
                    $0.requestID = RequestID(index)
                } body: { request in
                    request.run { RequestHandler().handle() }
                }
            }
        }
    },
    // swift-dependencies has no scoped objects: the most faithful equivalent of a request's unit of work
    // is a fresh object in the request's override, which ends with the override (there is no shutdown
    // to call). The loop runs in a task, as Contextual's does.
    Scenario(serverRequestGroup, .dependencies) { iterations in
        waitFor {
            for index in 0..<iterations {
                withDependencies {
                    $0.benchRequestID = RequestID(index)
                    $0.benchUnitOfWork = UnitOfWork(requestID: RequestID(index))
                } operation: {
                    DependencyRequestHandler().handle()
                }
            }
        }
    },
    // No shutdown here (target a has it): the scope is released with its object.
    Scenario(scopedObjectGroup, .contextual) { iterations in
        let app = ServerFixture.app
        for index in 0..<iterations {
            let request = app.scope { $0.requestID = RequestID(index) }
            consume(request.resolve(UnitOfWork.self) as UnitOfWork)
            consume(request[\.requestID])
        }
    },
    // The fresh object in the override stands for the scoped object, as in target a.
    Scenario(scopedObjectGroup, .dependencies) { iterations in
        for index in 0..<iterations {
            withDependencies {
                $0.benchRequestID = RequestID(index)
                $0.benchUnitOfWork = UnitOfWork(requestID: RequestID(index))
            } operation: {
                @Dependency(\.benchUnitOfWork) var unitOfWork
                @Dependency(\.benchRequestID) var requestID
                consume(unitOfWork)
                consume(requestID)
            }
        }
    },
]
