import Testing

@testable import Contextual

/// The reader view writes its reader over the values' origin at a constant offset (see
/// `ContextValues.originOffset`): the constant must be where the compiler put the property.
@Suite("The reader view's layout")
struct ReaderViewLayoutTests {
    @Test("The origin's offset the reader view writes at is the one the compiler laid out")
    func originOffsetMatchesTheLayout() {
        #expect(ContextValues.originOffset == MemoryLayout<ContextValues>.offset(of: \ContextValues.origin))
    }
}
