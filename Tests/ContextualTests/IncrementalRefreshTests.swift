import Dispatch
import Testing

@testable import Contextual

/// After an update, a context brings its state up to date by replacing only the entries the update
/// changed (the tree's change log), read from its ancestors; when that cannot be told it rebuilds from
/// its parent. Both ways must give what a chain read from scratch gives.
@Suite("Reading after updates: what each context sees, however its state is brought up to date")
struct IncrementalRefreshTests {
    /// The top, two levels below it, and a leaf, each overriding a value of its own.
    private static func chain() -> (top: Context, middle: Context, leaf: Context) {
        let top = Context(name: "top") {
            $0.requestID = "r0"
            $0.verbosity = 0
        }
        let middle = top.child(name: "middle") { $0.tags = ["middle"] }
        let leaf = middle.child(name: "between") { $0.databaseURL = "between" }.child(name: "leaf") {
            $0.databaseURL = "leaf"
        }
        return (top, middle, leaf)
    }

    @Test("A leaf sees every update of the top, whether read after each one or after many")
    func leafFollowsUpdates() {
        let (top, _, leaf) = Self.chain()
        for index in 1...40 {
            top.update { $0.requestID = "r\(index)" }
            #expect(leaf[\.requestID] == "r\(index)")
        }
        // More updates than the change log remembers, read once after them all.
        for index in 41...80 { top.update { $0.verbosity = index } }
        #expect(leaf[\.verbosity] == 80)
        #expect(leaf[\.requestID] == "r40")
        #expect(leaf[\.tags] == ["middle"])
        #expect(leaf[\.databaseURL] == "leaf")
    }

    @Test("An update that adds, replaces and removes values reaches a leaf, with more values than one record holds")
    func addsReplacesAndRemoves() {
        let (top, _, leaf) = Self.chain()
        #expect(leaf[\.requestID] == "r0")
        top.update {
            $0.removeValue(for: RequestIDKey.self)
            $0.verbosity = 3
            $0.tags = ["top"]
        }
        #expect(leaf[\.requestID] == "none")
        #expect(leaf[\.verbosity] == 3)
        // The middle context's own tags still shield the leaf.
        #expect(leaf[\.tags] == ["middle"])
        top.update {
            $0.requestID = "back"
            $0.verbosity = 4
            $0.databaseURL = "top"
            $0.provide(Database(url: "top-db"))
            $0.provide(MemoryStore(), as: (any Store).self)
        }
        #expect(leaf[\.requestID] == "back")
        #expect(leaf[\.verbosity] == 4)
        #expect(leaf[\.databaseURL] == "leaf")
        #expect(leaf.resolve(Database.self).url == "top-db")
        #expect(leaf.resolve((any Store).self).kind == "memory")
    }

    @Test("A context in between that stops overriding a value lets the top's through, and the top's next update")
    func overrideRemovedInBetween() {
        let (top, middle, leaf) = Self.chain()
        top.update { $0.tags = ["top-1"] }
        #expect(leaf[\.tags] == ["middle"])
        middle.update { $0.removeValue(for: TagsKey.self) }
        #expect(leaf[\.tags] == ["top-1"])
        top.update { $0.tags = ["top-2"] }
        #expect(leaf[\.tags] == ["top-2"])
        middle.update { $0.tags = ["middle-2"] }
        top.update { $0.tags = ["top-3"] }
        #expect(leaf[\.tags] == ["middle-2"])
        #expect(middle[\.tags] == ["middle-2"])
        #expect(top[\.tags] == ["top-3"])
    }

    @Test("A context in between that transforms what it inherits transforms each new value")
    func transformInBetween() {
        let top = Context(name: "top") { $0.tags = ["a"] }
        let audited = top.child(transforming: \.tags) { $0.append("audit") }
        let leaf = audited.child { $0.verbosity = 1 }.child { $0.requestID = "leaf" }
        #expect(leaf[\.tags] == ["a", "audit"])
        top.update { $0.tags = ["b"] }
        #expect(leaf[\.tags] == ["b", "audit"])
        top.update { $0.tags.append("c") }
        #expect(leaf[\.tags] == ["b", "c", "audit"])
    }

    @Test("An update in another branch leaves a leaf's values as they were")
    func siblingBranch() {
        let top = Context(name: "top") { $0.requestID = "top" }
        let left = top.child(name: "left") { $0.verbosity = 1 }
        let right = top.child(name: "right") { $0.verbosity = 2 }
        let leaf = left.child { $0.tags = ["leaf"] }
        #expect(leaf[\.verbosity] == 1)
        right.update { $0.verbosity = 20 }
        right.update { $0.requestID = "right" }
        #expect(leaf[\.verbosity] == 1)
        #expect(leaf[\.requestID] == "top")
        #expect(right.child()[\.requestID] == "right")
    }

    @Test("Container values stay with the context that sets them, across updates")
    func containerValuesAreNotInherited() {
        let host = Context(name: "host")
        let billing = host.member(name: "billing") { $0.containerValues.displayName = "Billing" }
        let invoices = billing.member(name: "invoices") { $0.verbosity = 1 }
        billing.update { $0.containerValues.displayName = "Renamed" }
        billing.update { $0.containerValues.priority = 3 }
        #expect(host.members.map(\.containerValues.displayName) == ["Renamed"])
        #expect(host.members.map(\.containerValues.priority) == [3])
        #expect(billing.members.map(\.containerValues.displayName) == ["unnamed module"])
        #expect(billing.members.map(\.containerValues.priority) == [0])
        withExtendedLifetime(invoices) {}
    }

    @Test("An owned member, and what is below it, follow its host's updates")
    func ownedMember() {
        let host = Context(name: "host") { $0.requestID = "h1" }
        let member = host.member(name: "member", ownership: .owned)
        let below = member.child { $0.verbosity = 1 }
        host.update { $0.requestID = "h2" }
        #expect(member[\.requestID] == "h2")
        #expect(below[\.requestID] == "h2")
    }

    @Test("Concurrent updates of the top and reads at leaves: each reader sees the values in order, then the last")
    func concurrentUpdatesAndReads() async {
        let top = Context(name: "top") { $0.verbosity = 0 }
        let leaves = (0..<4).map { branch in
            top.child { $0.requestID = "branch \(branch)" }.child { $0.tags = [] }.child { $0.databaseURL = "leaf" }
        }
        let updates = 400
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for index in 1...updates { top.update { $0.verbosity = index } }
                return true
            }
            for leaf in leaves {
                group.addTask {
                    // Bounded: a read that never sees the last update fails the test instead of hanging it.
                    var last = 0
                    var reads = 0
                    while last < updates {
                        let seen = leaf[\.verbosity]
                        if seen < last { return false }
                        last = seen
                        reads += 1
                        if reads > 5_000_000 { return false }
                        await Task.yield()
                    }
                    return true
                }
            }
            for await inOrder in group { #expect(inOrder) }
        }
        for leaf in leaves { #expect(leaf[\.verbosity] == updates) }
    }
}
