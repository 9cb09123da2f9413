import Contextual
import Testing

@Suite("Cycle detection")
struct CycleTests {
    @Test("A cycle between two providers is reported with its whole path, A → B → A")
    func twoProviderCycle() {
        let app = Context(name: "app") {
            $0.provide(ServiceA.self, lifetime: .singleton) { ctx in
                _ = try ctx.require(ServiceB.self)
                return ServiceA()
            }
            $0.provide(ServiceB.self, lifetime: .singleton) { ctx in
                _ = try ctx.require(ServiceA.self)
                return ServiceB()
            }
        }
        let error = #expect(throws: ContextError.self) { try app.require(ServiceA.self) }
        #expect(error?.code == .cycle)
        #expect(error?.resolutionPath == ["ServiceA (singleton)", "ServiceB (singleton)", "ServiceA (singleton)"])
        #expect(
            error?.message.contains("ServiceA (singleton) → ServiceB (singleton) → ServiceA (singleton)") == true
        )
        // Nothing was cached: the same cycle is reported again, from the other end.
        let again = #expect(throws: ContextError.self) { try app.require(ServiceB.self) }
        #expect(again?.resolutionPath == ["ServiceB (singleton)", "ServiceA (singleton)", "ServiceB (singleton)"])
    }

    @Test("An async build a synchronous factory starts inline (Task.immediate) is on that factory's path")
    func asyncBuildStartedInlineBySynchronousFactory() async throws {
        let paths = Collector<[String]>()
        let tasks = Collector<Task<Void, Never>>()
        let app = Context(name: "app") {
            $0.provide(ServiceA.self, lifetime: .singleton) { ctx in
                // Runs here, on this thread, until it suspends: while ServiceA is being built.
                let task = Task.immediate {
                    do {
                        _ = try await ctx.prepare(ServiceB.self)
                    } catch let error as ContextError {
                        paths.append(error.resolutionPath)
                    } catch {
                        paths.append(["unexpected: \(error)"])
                    }
                }
                tasks.append(task)
                return ServiceA()
            }
            $0.provide(ServiceB.self, lifetime: .singleton) { ctx async throws in
                _ = try ctx.require(ServiceA.self)
                return ServiceB()
            }
        }
        _ = try app.require(ServiceA.self)
        for task in tasks.all { await task.value }
        // The async build of ServiceB is the innermost one when its factory asks for ServiceA, not the
        // synchronous build of ServiceA the thread is in: the path goes through ServiceB.
        #expect(paths.all == [["ServiceA (singleton)", "ServiceB (singleton)", "ServiceA (singleton)"]])
    }

    @Test("A task started inside an async build that outlives it is not on that build's path")
    func taskOutlivingAsyncBuildIsNotOnItsPath() async throws {
        let (resume, resumer) = AsyncStream<Void>.makeStream()
        let builds = Counter()
        let tasks = Collector<Task<[String]?, Never>>()
        let app = Context(name: "app") {
            $0.provide(ServiceA.self, lifetime: .transient) { ctx async throws in
                builds.increment()
                if builds.count == 1 {
                    // Inherits the build's task locals, and resolves once the build is over.
                    tasks.append(
                        Task {
                            for await _ in resume { break }
                            do {
                                _ = try await ctx.prepare(ServiceA.self)
                                return nil
                            } catch let error as ContextError {
                                return error.resolutionPath
                            } catch {
                                return ["unexpected: \(error)"]
                            }
                        }
                    )
                }
                return ServiceA()
            }
        }
        _ = try await app.prepare(ServiceA.self)
        resumer.yield()
        let failure = await tasks.all.first?.value
        // The first build ended: building again from the task it started is no cycle.
        #expect(failure == nil)
        #expect(builds.count == 2)
    }

    @Test("A cycle of transient providers is detected instead of overflowing the stack")
    func transientCycleDoesNotOverflow() {
        let app = Context(name: "app") {
            $0.provide(ServiceA.self, lifetime: .transient) { ctx in
                _ = try ctx.require(ServiceB.self)
                return ServiceA()
            }
            $0.provide(ServiceB.self, lifetime: .transient) { ctx in
                _ = try ctx.require(ServiceC.self)
                return ServiceB()
            }
            $0.provide(ServiceC.self, lifetime: .transient) { ctx in
                _ = try ctx.require(ServiceA.self)
                return ServiceC()
            }
        }
        let error = #expect(throws: ContextError.self) { try app.child().require(ServiceB.self) }
        #expect(error?.code == .cycle)
        #expect(
            error?.resolutionPath == [
                "ServiceB (transient)", "ServiceC (transient)", "ServiceA (transient)", "ServiceB (transient)",
            ]
        )
    }

    @Test("A provider that resolves itself is a cycle of one")
    func selfCycle() {
        let app = Context(name: "app") {
            $0.provide(ServiceA.self, lifetime: .scoped) { ctx in
                _ = try ctx.require(ServiceA.self)
                return ServiceA()
            }
        }
        let error = #expect(throws: ContextError.self) { try app.child().require(ServiceA.self) }
        #expect(error?.resolutionPath == ["ServiceA (scoped)", "ServiceA (scoped)"])
    }

    @Test("A cycle closed by two tasks at once, each building one end, is reported and does not deadlock")
    func crossTaskCycle() async {
        let aStarted = Gate()
        let bStarted = Gate()
        let app = Context(name: "app") {
            $0.provide(ServiceA.self, lifetime: .singleton) { ctx in
                aStarted.open()
                bStarted.wait()
                _ = try ctx.require(ServiceB.self)
                return ServiceA()
            }
            $0.provide(ServiceB.self, lifetime: .singleton) { ctx in
                bStarted.open()
                aStarted.wait()
                _ = try ctx.require(ServiceA.self)
                return ServiceB()
            }
        }
        async let first = onThread { () -> ContextError? in
            do throws(ContextError) {
                _ = try app.require(ServiceA.self)
                return nil
            } catch {
                return error
            }
        }
        async let second = onThread { () -> ContextError? in
            do throws(ContextError) {
                _ = try app.require(ServiceB.self)
                return nil
            } catch {
                return error
            }
        }
        let errors = await [first, second]
        #expect(errors.allSatisfy { $0?.code == .cycle })
        let a = "ServiceA (singleton)"
        let b = "ServiceB (singleton)"
        let paths = Set(errors.compactMap { $0?.resolutionPath })
        #expect(paths.isSubset(of: [[a, b, a], [b, a, b]]))
        #expect(!paths.isEmpty)
    }

    @Test("A cycle through key-path providers stops the process with the path instead of hanging")
    func keyPathCycleIsHard() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let app = Context(name: "app") {
                $0.provide(\.httpClient, lifetime: .singleton) { ctx in HTTPClient(name: ctx[\.databaseURL]) }
                $0.provide(\.databaseURL, lifetime: .singleton) { ctx in ctx[\.httpClient].name }
            }
            _ = app[\.httpClient]
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(
            stderr.contains(
                "dependency cycle: HTTPClientKey (singleton) → DatabaseURLKey (singleton) → HTTPClientKey (singleton)"
            )
        )
    }

    @Test("require(keyPath) reports a cycle through key-path providers as an error")
    func keyPathCycleThroughRequire() {
        let app = Context(name: "app") {
            $0.provide(\.httpClient, lifetime: .singleton) { ctx in HTTPClient(name: try ctx.require(\.databaseURL)) }
            $0.provide(\.databaseURL, lifetime: .singleton) { ctx in try ctx.require(\.httpClient).name }
        }
        let error = #expect(throws: ContextError.self) { try app.require(\.httpClient) }
        #expect(error?.code == .cycle)
        #expect(
            error?.resolutionPath == [
                "HTTPClientKey (singleton)", "DatabaseURLKey (singleton)", "HTTPClientKey (singleton)",
            ]
        )
    }
}
