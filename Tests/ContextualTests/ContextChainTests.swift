import Contextual
import Testing

@Suite("Contexts chained parent to child")
struct ContextChainTests {
    @Test("A child sees everything its parent holds")
    func childInheritsParentValues() {
        let app = Context(name: "app") {
            $0.requestID = "from app"
            $0.tags = ["app"]
        }
        let child = app.child(name: "child") { $0.verbosity = 2 }
        #expect(child[\.requestID] == "from app")
        #expect(child[\.tags] == ["app"])
        #expect(child[\.verbosity] == 2)
    }

    @Test("child(name:) without a closure derives a named child that overrides nothing")
    func childWithoutClosure() {
        let app = Context(name: "app") { $0.verbosity = 3 }
        let request = app.child(name: "request")
        let unnamed = app.child()
        #expect(request.name == "request")
        #expect(request.parent === app)
        #expect(request[\.verbosity] == 3)
        #expect(unnamed.name == nil)
        #expect(unnamed.parent === app)
        #expect(request !== app && unnamed !== request)
    }

    @Test("Mutations change the receiver and derive nothing; derivations return a new child")
    func mutationsAndDerivations() {
        let host = Context(name: "host")
        let member = host.member(name: "billing")
        member.setContainerValue(\.displayName, "Billing")
        member.setPreference(\.routes, ["/invoices"])
        member.contribute(\.routes, "/refunds")
        #expect(host.members.map(\.containerValues.displayName) == ["Billing"])
        #expect(host.preference(\.routes) == ["/invoices", "/refunds"])
        let transformed = host.child(transforming: \.verbosity) { $0 += 1 }
        #expect(transformed.parent === host)
        #expect(transformed[\.verbosity] == host[\.verbosity] + 1)
    }

    @Test("An override affects its context and descendants, never the parent nor a sibling")
    func overrideStaysInSubtree() {
        let app = Context(name: "app") { $0.requestID = "app" }
        let first = app.child(name: "first") { $0.requestID = "first" }
        let second = app.child(name: "second") { $0.verbosity = 1 }
        let grandchild = first.child(name: "grandchild") { $0.verbosity = 9 }

        #expect(first[\.requestID] == "first")
        #expect(grandchild[\.requestID] == "first")
        #expect(app[\.requestID] == "app")
        #expect(second[\.requestID] == "app")
        #expect(app[\.verbosity] == 0)
        #expect(first[\.verbosity] == 0)
    }

    @Test("The nearest override wins, up to the next override of the same key")
    func nearestOverrideWins() {
        var context = Context(name: "level 0") { $0.verbosity = 0 }
        for level in 1...70 {
            context = context.child(name: "level \(level)") { values in
                if level.isMultiple(of: 10) { values.verbosity = level }
                values.tags.append("\(level)")
            }
        }
        #expect(context[\.verbosity] == 70)
        #expect(context.parent?[\.verbosity] == 60)
        #expect(context[\.tags].count == 70)
        #expect(context.depth == 70)
    }

    @Test("The one-value form overrides a single key, like environment(_:_:)")
    func oneValueForm() {
        let app = Context(name: "app") { $0.requestID = "app" }
        let request = app.child(\.requestID, "req-7", name: "request")
        #expect(request[\.requestID] == "req-7")
        #expect(request.name == "request")
        #expect(request.parent === app)
    }

    @Test("A dedicated modifier reads like SwiftUI's .lineLimit(2)")
    func dedicatedModifier() {
        let app = Context(name: "app")
        #expect(app.verbosity(2)[\.verbosity] == 2)
        #expect(app[\.verbosity] == 0)
    }

    @Test("transforming derives a child whose value is the inherited one transformed")
    func transformingTransformsInheritedValue() {
        let app = Context(name: "app") { $0.tags = ["base"] }
        let audited = app.child(transforming: \.tags) { $0.append("audit") }
        let twice = audited.child(transforming: \.tags) { $0.append("again") }
        #expect(audited[\.tags] == ["base", "audit"])
        #expect(twice[\.tags] == ["base", "audit", "again"])
        #expect(app[\.tags] == ["base"])
        let fromDefault = Context(name: "empty").child(transforming: \.tags) { $0.append("x") }
        #expect(fromDefault[\.tags] == ["x"])
    }

    @Test("Reads inside a child's configuring closure see the parent's values")
    func configuringClosureSeesParent() {
        let app = Context(name: "app") { $0.verbosity = 4 }
        let child = app.child { $0.verbosity += 1 }
        #expect(child[\.verbosity] == 5)
    }

    @Test("A context names its chain for diagnostics, nearest first")
    func chainNames() {
        let app = Context(name: "app")
        let unnamed = app.child { $0.verbosity = 1 }
        let request = unnamed.child(name: "request") { $0.verbosity = 2 }
        #expect(request.chainNames == ["request", "(unnamed, depth 1)", "app"])
    }

    @Test("A child does not keep its parent from being released once both are dropped, nor the parent its child")
    func noRetainCycles() {
        weak var weakApp: Context?
        weak var weakChild: Context?
        do {
            let app = Context(name: "app") { $0.verbosity = 1 }
            let child = app.child { $0.verbosity = 2 }
            weakApp = app
            weakChild = child
            #expect(child[\.verbosity] == 2)
        }
        #expect(weakChild == nil)
        #expect(weakApp == nil)
    }

    @Test("A child keeps its parent alive while it lives, and releasing it leaves a shared parent alone")
    func childHoldsParent() {
        weak var weakApp: Context?
        var child: Context?
        var sibling: Context?
        do {
            let app = Context(name: "app") { $0.verbosity = 1 }
            weakApp = app
            child = app.child { $0.verbosity = 2 }
            sibling = app.child()
        }
        #expect(weakApp != nil)
        #expect(child?[\.verbosity] == 2)
        child = nil
        #expect(weakApp != nil)
        #expect(sibling?.parent === weakApp)
        #expect(sibling?[\.verbosity] == 1)
        sibling = nil
        #expect(weakApp == nil)
    }

    @Test("Releasing a chain 500,000 contexts deep releases every link, one at a time, without recursing")
    func deepChainReleases() async {
        await #expect(processExitsWith: .success) {
            weak var weakRoot: Context?
            var leaf: Context?
            do {
                let root = Context(name: "root")
                weakRoot = root
                leaf = root
                for _ in 0..<500_000 { leaf = leaf?.child() }
            }
            // Released one deinit inside another, this chain would overflow the stack.
            leaf = nil
            if weakRoot != nil { fatalError("the root outlived its last descendant") }
        }
    }
}
