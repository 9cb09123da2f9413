import Contextual
import Testing

@Suite("Members")
struct MembershipTests {
    @Test("A weak member that nobody else holds ends and is no longer listed")
    func weakMemberEnds() {
        let host = Context(name: "host")
        weak var weakMember: Context?
        do {
            let member = host.member(name: "temporary")
            weakMember = member
            #expect(host.members.count == 1)
        }
        #expect(weakMember == nil)
        #expect(host.members.isEmpty)
    }

    @Test("An owned member is kept alive by its host until it is removed")
    func ownedMember() {
        let host = Context(name: "host")
        weak var weakMember: Context?
        do {
            weakMember = host.member(name: "metrics", ownership: .owned)
        }
        #expect(weakMember != nil)
        #expect(host.members.map(\.name) == ["metrics"])
        #expect(host.members.map(\.ownership) == [.owned])
        let removed = host.removeMember(weakMember!)
        #expect(removed)
        #expect(weakMember == nil)
        #expect(host.members.isEmpty)
    }

    @Test("removeMember(_:) of a context that is not a member returns false")
    func removeNonMember() {
        let host = Context(name: "host")
        let member = host.member(name: "member")
        let child = host.child(name: "child")
        #expect(host.removeMember(child) == false)
        #expect(member.removeMember(member) == false)
        #expect(host.removeMember(member))
        #expect(host.removeMember(member) == false)
        #expect(member.isMember == false)
    }

    @Test("A member that is shut down is no longer listed, and an owned one is released")
    func shutDownMember() async throws {
        let host = Context(name: "host")
        weak var weakMember: Context?
        do {
            let member = host.member(name: "job", ownership: .owned)
            weakMember = member
            let kept = host.member(name: "kept")
            #expect(host.members.count == 2)
            try await member.shutdown()
            #expect(host.members.map(\.context).map(ObjectIdentifier.init) == [ObjectIdentifier(kept)])
        }
        #expect(weakMember == nil)
    }

    @Test("A scope added as a member is listed while withScope runs, then leaves")
    func scopeMember() async throws {
        let app = Context(name: "app")
        let listed = try await app.withScope(name: "request 7") { request in
            try app.addMember(request)
            return app.members.map(\.name)
        }
        #expect(listed == ["request 7"])
        #expect(app.members.isEmpty)
    }

    @Test("addMember rejects a grandchild, a second registration and an ended scope, with clear errors")
    func wrongRegistrations() async throws {
        let host = Context(name: "host")
        let module = host.child(name: "module")
        let grandchild = module.child(name: "grandchild")

        let notChild = #expect(throws: ContextError.self) { try host.addMember(grandchild) }
        #expect(notChild?.code == .notADirectChild)
        #expect(notChild?.message.contains("'grandchild' can't be a member of 'host'") == true)
        #expect(notChild?.message.contains("its parent is 'module'") == true)

        try host.addMember(module)
        let twice = #expect(throws: ContextError.self) { try host.addMember(module) }
        #expect(twice?.code == .alreadyAMember)
        #expect(host.members.count == 1)

        let ended = host.scope(name: "ended")
        try await ended.shutdown()
        let endedError = #expect(throws: ContextError.self) { try host.addMember(ended) }
        #expect(endedError?.code == .scopeEnded)
        #expect(endedError?.message.contains("'ended' has been shut down") == true)
        #expect(host.members.map(\.name) == ["module"])
    }

    @Test("Members added and dropped from many tasks at once leave exactly the owned ones listed")
    func concurrentMembership() async {
        let host = Context(name: "host")
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<200 {
                group.addTask {
                    let member = host.member(
                        name: "member \(index)",
                        ownership: index.isMultiple(of: 2) ? .owned : .weak
                    )
                    _ = host.members.count
                    withExtendedLifetime(member) {}
                }
            }
        }
        let names = host.members.map { $0.name ?? "" }
        #expect(names.count == 100)
        #expect(Set(names) == Set((0..<200).filter { $0.isMultiple(of: 2) }.map { "member \($0)" }))
        #expect(host.members.allSatisfy { $0.ownership == .owned })
    }

    @Test("isMember tells a registered member from a plain child")
    func isMember() {
        let host = Context(name: "host")
        let member = host.member(name: "member")
        #expect(member.isMember)
        #expect(host.child().isMember == false)
        #expect(host.isMember == false)
    }

    @Test("Members stay listed in registration order through removals, re-registrations and compaction")
    func orderThroughRemovals() throws {
        let host = Context(name: "host")
        var members = (0..<100).map { host.member(name: "member \($0)", ownership: .owned) }
        // Every other one leaves, then most of the rest: the list compacts its holes on the way.
        for index in stride(from: 1, to: 100, by: 2) { #expect(host.removeMember(members[index])) }
        #expect(host.members.map(\.name) == stride(from: 0, to: 100, by: 2).map { "member \($0)" })
        for index in stride(from: 2, to: 100, by: 2) { #expect(host.removeMember(members[index])) }
        #expect(host.members.map(\.name) == ["member 0"])
        // A member removed can be registered again, last; one still registered cannot.
        try host.addMember(members[99])
        #expect(throws: ContextError.self) { try host.addMember(members[0]) }
        members.append(host.member(name: "member 100"))
        #expect(host.members.map(\.name) == ["member 0", "member 99", "member 100"])
        #expect(host.removeMember(members[0]))
        #expect(host.removeMember(members[0]) == false)
        #expect(host.members.map(\.name) == ["member 99", "member 100"])
    }
}
