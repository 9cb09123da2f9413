// `InlineList`: a list that keeps its first element inline, for the short lists made per request.

// MARK: - InlineList

/// A list whose first element is stored inline and the others in an array: a list of one (what a
/// request's scope mostly holds) allocates nothing.
///
/// ```swift
/// var running = InlineList<String>()
/// running.append("Database")              // no allocation
/// running.removeFirst { $0 == "Database" }
/// ```
struct InlineList<Element> {
    private var first: Element?
    private var more: [Element] = []

    init() {}

    var isEmpty: Bool { first == nil }

    /// Adds `element` at the end.
    mutating func append(_ element: Element) {
        if first == nil { first = element } else { more.append(element) }
    }

    /// Removes the first element that `matches`, keeping the order of the others.
    ///
    /// - Complexity: O(n).
    mutating func removeFirst(where matches: (Element) -> Bool) {
        if let first, matches(first) {
            self.first = more.isEmpty ? nil : more.removeFirst()
        } else if let index = more.firstIndex(where: matches) {
            more.remove(at: index)
        }
    }

    /// Changes every element in place, in order.
    mutating func updateEach(_ body: (inout Element) -> Void) {
        if first != nil { body(&first!) }
        for index in more.indices { body(&more[index]) }
    }
}

// MARK: - Sequence

extension InlineList: Sequence {
    struct Iterator: IteratorProtocol {
        fileprivate let list: InlineList
        fileprivate var index = -1

        mutating func next() -> Element? {
            defer { index += 1 }
            if index < 0 { return list.first }
            return index < list.more.count ? list.more[index] : nil
        }
    }

    func makeIterator() -> Iterator { Iterator(list: self) }

    var underestimatedCount: Int { isEmpty ? 0 : 1 + more.count }
}
