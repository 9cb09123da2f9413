import Contextual
import Testing

@Suite("Container values")
struct ContainerValueTests {
    @Test("A host reads each member's container values through its members, in registration order")
    func hostReadsMembers() {
        let host = Context(name: "host")
        let billing = host.member(name: "billing") {
            $0.containerValues.displayName = "Billing"
            $0.containerValues.priority = 2
        }
        let auth = host.member(name: "auth") { $0.containerValues.displayName = "Sign-in" }
        let plain = host.member(name: "plain")
        #expect(host.members.map(\.name) == ["billing", "auth", "plain"])
        #expect(host.members.map(\.containerValues.displayName) == ["Billing", "Sign-in", "unnamed module"])
        #expect(host.members.map(\.containerValues.priority) == [2, 0, 0])
        #expect(
            host.members.map(\.context).map(ObjectIdentifier.init) == [billing, auth, plain].map(ObjectIdentifier.init)
        )
        var seen: [String] = []
        host.forEachMember { seen.append($0.containerValues.displayName) }
        #expect(seen == ["Billing", "Sign-in", "unnamed module"])
    }

    @Test("Container values are not inherited: a member's child starts from the defaults")
    func notInherited() {
        let host = Context(name: "host")
        let billing = host.member(name: "billing") {
            $0.containerValues.displayName = "Billing"
            $0.requestID = "inherited"
        }
        var seenInConfigure = ""
        let invoices = billing.member(name: "invoices") { seenInConfigure = $0.containerValues.displayName }
        #expect(seenInConfigure == "unnamed module")
        #expect(billing.members.map(\.containerValues.displayName) == ["unnamed module"])
        #expect(invoices[\.requestID] == "inherited")  // context values still are inherited
        // A grandchild is never the host's member: the host sees its direct members only.
        #expect(host.members.map(\.context).map(ObjectIdentifier.init) == [ObjectIdentifier(billing)])
    }

    @Test("containerValue(_:_:) sets a value after creation and keeps the context's other values")
    func setLater() {
        let host = Context(name: "host")
        let billing = host.member(name: "billing") {
            $0.requestID = "kept"
            $0.containerValues.priority = 5
        }
        billing.setContainerValue(\.displayName, "Billing")
        #expect(host.members[0].containerValues.displayName == "Billing")
        #expect(host.members[0].containerValues.priority == 5)
        #expect(billing[\.requestID] == "kept")
        billing.update { $0.containerValues.removeValue(for: DisplayNameKey.self) }
        #expect(host.members[0].containerValues.displayName == "unnamed module")
        #expect(host.members[0].containerValues.priority == 5)
    }

    @Test("Assigning containerValues as a whole replaces container values only")
    func wholeAssignment() {
        let host = Context(name: "host")
        let templateMember = host.member(name: "template") { $0.containerValues.displayName = "T" }
        var template = templateMember.snapshotContainerValues()
        template.priority = 9
        let module = host.member(name: "module") {
            $0.requestID = "kept"
            $0.preferences.routes = ["/kept"]
            $0.containerValues = template
        }
        #expect(module[\.requestID] == "kept")
        #expect(module.preference(\.routes) == ["/kept"])
        #expect(host.members[1].containerValues.displayName == "T")
        #expect(host.members[1].containerValues.priority == 9)
        #expect(host.members[0].containerValues.priority == 0)  // the template's own stay as they were
    }

    @Test("Container values of the parent never reach a child's context values or the child's own")
    func parentValuesStayPut() {
        let host = Context(name: "host") { $0.containerValues.displayName = "Host" }
        let module = host.member(name: "module")
        #expect(host.members[0].containerValues.displayName == "unnamed module")
        module.update { values in
            #expect(values.containerValues.displayName == "unnamed module")
        }
    }
}

extension Context {
    /// A member's container values as its parent sees them (test helper).
    fileprivate func snapshotContainerValues() -> ContainerValues {
        parent!.members.first { $0.context === self }!.containerValues
    }
}

@Suite("Diagnostics of members")
struct MemberDumpTests {
    @Test("dump() shows container values, preferences and members, per context, as types")
    func dump() {
        let host = Context(name: "host") { $0.preferences.routes = ["/"] }
        let billing = host.member(name: "billing", ownership: .owned) {
            $0.containerValues.displayName = "Billing"
            $0.preferences.poolSize = 4
            $0.requestID = "r"
        }
        let auth = host.member(name: "auth")
        #expect(
            billing.wiringDescription == """
                Context chain of 'billing', root first:
                - 'host' (root)
                    preference RoutesKey: value of type Array<String>
                    members: 'billing' (owned), 'auth'
                - 'billing' (child of 'host', member)
                    container value DisplayNameKey: value of type String
                    key RequestIDKey: value of type String
                    preference PoolSizeKey: value of type Int
                """
        )
        withExtendedLifetime(auth) {}
    }
}
