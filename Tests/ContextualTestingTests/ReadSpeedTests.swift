// A read in a test context costs within 2x of a production read, inside `swift test` (debug and release).

import Contextual
import ContextualTesting
import Testing

@Suite("Read speed in a test context")
struct ReadSpeedTests {
    /// Nanoseconds per read of `read`, the fastest of several rounds (the least disturbed by other work).
    static func nanosecondsPerRead(_ read: () -> Int) -> Double {
        let reads = 200_000
        var best = Double.infinity
        var checksum = 0
        for _ in 0..<7 {
            let start = ContinuousClock.now
            for _ in 0..<reads { checksum &+= read() }
            let elapsed = ContinuousClock.now - start
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
            best = min(best, seconds * 1e9 / Double(reads))
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

        let rows: [(String, Double, Double)] = [
            (
                "default (unset key)",
                Self.nanosecondsPerRead { production[\.requestNumber] },
                Self.nanosecondsPerRead { test[\.requestNumber] }
            ),
            (
                "set key",
                Self.nanosecondsPerRead { production[\.greeting].utf8.count },
                Self.nanosecondsPerRead { test[\.greeting].utf8.count }
            ),
            (
                "@Injected, default",
                Self.nanosecondsPerRead { productionGreeter.requestNumber },
                Self.nanosecondsPerRead { testGreeter.requestNumber }
            ),
        ]
        for (name, productionTime, testTime) in rows {
            let ratio = testTime / productionTime
            print(
                "read speed: \(name): production \(productionTime) ns, test context \(testTime) ns, ratio \(ratio)"
            )
            #expect(ratio < 2, "a read (\(name)) in a test context costs \(ratio)x a production read")
        }
    }
}
