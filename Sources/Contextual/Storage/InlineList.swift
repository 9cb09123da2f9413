// `InlineList`: a list that keeps its first element inline, for the short lists made per request.
// Architecture: ARCHITECTURE.md, "Primitives".

// MARK: - InlineList

/// A list whose first element is stored inline and the others in an array: a list of one (what a
/// request's scope mostly holds) allocates nothing. A random-access collection, so that it is counted and
/// indexed without being copied into an array; a scope's shutdown takes its objects out last first
/// (``popLast()``), moving each rather than copying it.
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

    /// Whether the list holds one element: its first, inline. Spelled out rather than `count == 1`, which
    /// a debug build computes through `Collection`'s generic distance and looks up metadata for.
    var holdsOne: Bool { first != nil && more.isEmpty }

    /// Makes room for `capacity` elements in all, so that appending up to that many allocates at most
    /// once (grown one at a time, an array allocates at 1, 2, 4 and 8 elements).
    mutating func reserveCapacity(_ capacity: Int) {
        more.reserveCapacity(capacity - 1)
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

    /// Removes the last element and returns it (moved out, not copied), or nil when the list is empty.
    mutating func popLast() -> Element? {
        more.isEmpty ? first.take() : more.removeLast()
    }

    /// The elements, moved out: none is left here.
    mutating func take() -> InlineList {
        var taken = InlineList()
        swap(&taken, &self)
        return taken
    }

    /// Changes every element in place, in order.
    mutating func updateEach(_ body: (inout Element) -> Void) {
        if first != nil { body(&first!) }
        for index in more.indices { body(&more[index]) }
    }
}

// MARK: - Collection

extension InlineList: RandomAccessCollection {
    var startIndex: Int { 0 }

    var endIndex: Int { first == nil ? 0 : 1 + more.count }

    /// The element at `position`: the inline one at 0, the others after it.
    subscript(position: Int) -> Element {
        position == 0 ? first! : more[position - 1]
    }
}
