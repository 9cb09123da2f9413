// A read in a test context costs within 2x of a production read, inside `swift test` (debug and release).
//
// A timing needs the machine to itself: it runs when CONTEXTUAL_READ_SPEED is set, as .ci/run does in a
// step of its own (`swift test --filter ReadSpeedTests`, debug and release), not among the parallel tests,
// whose load would skew it (and which it would slow down, e.g. the memory test of ServerIsolationTests).

import Contextual
import ContextualTesting
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("Read speed in a test context", .enabled(if: getenv("CONTEXTUAL_READ_SPEED") != nil))
struct ReadSpeedTests {
    /// Nanoseconds per read of `production` and of `test`, each the fastest of rounds that alternate
    /// between the two, so that a burst of other work (tests run in parallel) slows both alike.
    static func nanosecondsPerRead(production: () -> Int, test: () -> Int) -> (production: Double, test: Double) {
        let reads = 100_000
        var best = (production: Double.infinity, test: Double.infinity)
        var checksum = 0
        func time(_ read: () -> Int) -> Double {
            let start = ContinuousClock.now
            for _ in 0..<reads { checksum &+= read() }
            let elapsed = ContinuousClock.now - start
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
            return seconds * 1e9 / Double(reads)
        }
        for _ in 0..<21 {
            best.production = min(best.production, time(production))
            best.test = min(best.test, time(test))
        }
        // Keeps the reads: their sum is used.
        if checksum == .min { print(checksum) }
        return best
    }

    @Test("Reading a default, a set value and an @Injected in a test context costs within 2x of production")
    func withinTwiceProduction() {
        let production = Context(name: "production") { $0.greeting = "set" }
        let test = Context.testing(name: "test") { $0.greeting = "set" }
        // Warm both: the first read of a default computes it.
        _ = (production[\.requestNumber], test[\.requestNumber])
        let (productionGreeter, testGreeter) = (production.run { Greeter() }, test.run { Greeter() })

        let rows = [
            (
                "default (unset key)",
                Self.nanosecondsPerRead(production: { production[\.requestNumber] }, test: { test[\.requestNumber] })
            ),
            (
                "set key",
                Self.nanosecondsPerRead(
                    production: { production[\.greeting].utf8.count },
                    test: { test[\.greeting].utf8.count }
                )
            ),
            (
                "@Injected, default",
                Self.nanosecondsPerRead(
                    production: { productionGreeter.requestNumber },
                    test: { testGreeter.requestNumber }
                )
            ),
        ]
        for (name, (productionTime, testTime)) in rows {
            // Below a nanosecond (a warm @Injected read is a load or two), the loop's own cost and the
            // timer's noise dominate: compare with at least 1 ns.
            let ratio = testTime / max(productionTime, 1)
            print(
                "read speed: \(name): production \(productionTime) ns, test context \(testTime) ns, ratio \(ratio)"
            )
            #expect(ratio < 2, "a read (\(name)) in a test context costs \(ratio)x a production read")
        }
    }
}
