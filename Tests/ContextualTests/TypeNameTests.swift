import Testing

@testable import Contextual

// Type names in labels and messages: the runtime's cached names, spelled as String(describing:) spells them.

// MARK: - Type names in labels and messages

private protocol NamedStore {}
private protocol NamedSendable: Sendable {}
private enum Bit<Rest> {}
private final class Made<T>: NamedSendable {}
private struct Described: CustomStringConvertible, CustomDebugStringConvertible {
    var description: String { "described" }
    var debugDescription: String { "debug-described" }
}

@Suite("Type names: labels and messages spell a type as String(describing:) and String(reflecting:) do")
struct TypeNameTests {
    static let types: [Any.Type] = [
        Int.self, String?.self, [String: Int].self, (Int, String).self, ((Int) -> String).self,
        (any NamedStore).self, (any NamedStore.Type).self, Bit<Made<Int>>.self, Made<Described>.self, Described.self,
        Void.self, Factory<(String, Int), Made<Int>>.self,
    ]

    @Test("name(of:) is String(describing:), qualifiedName(of:) is String(reflecting:)", arguments: types)
    func sameNames(_ type: Any.Type) {
        #expect(TypeMetadata.name(of: type) == String(describing: type))
        #expect(TypeMetadata.qualifiedName(of: type) == String(reflecting: type))
    }

    @Test("A provider's label, a forwarded one's and a missing object's message use those names")
    func labelsAndMessages() {
        let app = Context(name: "app") {
            $0.provide(Made<Described>.self, lifetime: .singleton) { _ in Made() }
            $0.forward((any NamedSendable).self, to: Made<Described>.self)
        }
        #expect(
            app.visibleProviders().map(\.label).sorted() == [
                "Made<Described> (singleton)", "NamedSendable (singleton, forwarded to Made<Described>)",
            ]
        )
        let error = ContextError.missingObject(Bit<Int>.self, in: app)
        #expect(error.requestedType == String(reflecting: Bit<Int>.self))
    }
}
