import Contextual
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("Server isolation and lifetimes under load")
struct ServerIsolationTests {
    /// A request's service: reads the request ID through `@Injected`, after awaiting.
    struct AuditService {
        @Injected(\.requestID) var requestID
        @Injected(Connection.self) var connection

        func handle() async -> (id: String, connection: String) {
            await Task.yield()
            return (requestID, connection.url)
        }
    }

    @Test("10,000 concurrent requests, each in its own context, see only their own request ID after awaiting")
    func tenThousandRequestsAreIsolated() async {
        let app = Context(name: "app") {
            $0.provide(Connection.self, lifetime: .scoped) { scope in Connection(url: scope[\.requestID]) }
        }
        let mismatches = await withTaskGroup(of: Int.self) { group in
            for index in 0..<10_000 {
                group.addTask {
                    let id = "req-\(index)"
                    let request = app.child(name: id) { $0.requestID = id }
                    return await request.run {
                        async let nested = AuditService().handle()  // a child task inherits the context
                        let service = AuditService()
                        await Task.yield()
                        let seen = await service.handle()
                        let fromChild = await nested
                        let current = Context.current[\.requestID]
                        return [seen.id, seen.connection, fromChild.id, current].allSatisfy { $0 == id } ? 0 : 1
                    }
                }
            }
            return await group.reduce(0, +)
        }
        #expect(mismatches == 0)
    }

    @Test("A million request contexts (200,000 under a sanitizer) with a scoped object each leave nothing alive")
    func millionRequestsLeaveNothingAlive() async {
        // In a process of its own (an exit test), so that the resident memory measured is this loop's
        // alone: the suites running in parallel in the test process moved it by tens of megabytes.
        await #expect(processExitsWith: .success) {
            // A sanitizer checks every access of every request, so a fifth of them shows it all; the
            // plain run keeps the million, where the growth of a smaller leak shows.
            let requests = ServerIsolationTests.underSanitizer ? 200_000 : 1_000_000
            let liveConnections = Counter()
            let app = Context(name: "app") {
                $0.provide(Connection.self, lifetime: .scoped) { _ in Connection(url: "scoped", live: liveConnections) }
            }
            weak var lastRequest: Context?
            weak var lastConnection: Connection?
            // Measured from the first fifth of the requests on, once the allocator has reached its steady
            // state, every tenth. Under AddressSanitizer, the memory held is the heap in use: its
            // quarantine keeps the memory of every free resident (256 MiB by default), which the resident
            // set would count as growth.
            let measure = ServerIsolationTests.memoryMeasure()
            let settled = requests / 5
            let every = requests / 10
            var baseline = 0
            var peak = 0
            for index in 0..<requests {
                let request = app.child { $0.requestID = "r" }
                guard let connection = try? request.require(Connection.self) else { exit(2) }
                if index == requests - 1 {
                    lastRequest = request
                    lastConnection = connection
                }
                if index == settled { baseline = measure.bytes() }
                if index > settled && index % every == 0 { peak = max(peak, measure.bytes()) }
            }
            guard lastRequest == nil, lastConnection == nil, liveConnections.count == 0 else { exit(3) }
            // Flat memory: a leak of a context, a store, a cell and a connection per request would be
            // over a hundred megabytes over the last 800,000 requests; allow the allocator its slack. Over
            // the last 160,000 (under a sanitizer) only a leak of about 100 bytes a request or more shows
            // here: the plain run, with the million, catches smaller ones.
            let growth = max(peak, measure.bytes()) - baseline
            if growth >= 16 << 20 {
                print("\(measure.name) grew by \(growth >> 20) MiB")
                exit(4)
            }
            exit(0)
        }
    }

    /// Whether the process runs under AddressSanitizer or ThreadSanitizer (found at run time, as in
    /// ``memoryMeasure()``).
    static var underSanitizer: Bool {
        #if canImport(Darwin)
        let everything = RTLD_DEFAULT
        #else
        let everything: UnsafeMutableRawPointer? = nil  // RTLD_DEFAULT
        #endif
        return dlsym(everything, "__asan_init") != nil || dlsym(everything, "__tsan_init") != nil
    }

    /// How the memory a loop holds is measured: the heap in use, as AddressSanitizer's allocator counts
    /// it, when the process runs under it (found at run time: `swift test --sanitize=address` builds the
    /// tests with it, and defines no condition to compile on); the resident set size otherwise.
    static func memoryMeasure() -> (name: String, bytes: () -> Int) {
        // The symbols of the executable, where the sanitizer's runtime is linked, and of its libraries.
        #if canImport(Darwin)
        let everything = RTLD_DEFAULT
        #else
        let everything: UnsafeMutableRawPointer? = nil  // RTLD_DEFAULT
        #endif
        if dlsym(everything, "__asan_init") != nil,
            let symbol = dlsym(everything, "__sanitizer_get_current_allocated_bytes")
        {
            let allocatedBytes = unsafeBitCast(symbol, to: (@convention(c) () -> Int).self)
            return ("the heap in use (AddressSanitizer)", { allocatedBytes() })
        }
        return ("resident memory", residentBytes)
    }

    /// The resident set size, from `/proc/self/statm` (0 where there is none).
    static func residentBytes() -> Int {
        let descriptor = open("/proc/self/statm", O_RDONLY)
        guard descriptor >= 0 else { return 0 }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 128)
        let count = read(descriptor, &buffer, buffer.count)
        guard count > 0 else { return 0 }
        let fields = String(decoding: buffer[..<count], as: UTF8.self).split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
