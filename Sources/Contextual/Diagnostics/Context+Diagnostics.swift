// The names a context shows in diagnostics: its chain of names and its depth.

// MARK: - Diagnostics

extension Context {
    /// The names of this context and its ancestors, nearest first; an unnamed context is shown by its
    /// depth, e.g. `(unnamed, depth 2)`.
    ///
    /// ```swift
    /// request.chainNames  // ["request", "app"]
    /// ```
    public var chainNames: [String] {
        var names: [String] = []
        var node: Context? = self
        while let current = node {
            names.append(current.displayName)
            node = current.parent
        }
        return names
    }

    /// How many ancestors this context has: 0 for a root.
    ///
    /// ```swift
    /// app.child().depth  // 1
    /// ```
    public var depth: Int {
        var depth = 0
        var node = parent
        while let current = node {
            depth += 1
            node = current.parent
        }
        return depth
    }

    var displayName: String { name ?? Context.displayName(name: nil, depth: depth) }

    /// The name in diagnostics of a context named `name`, `depth` levels below its root.
    static func displayName(name: String?, depth: Int) -> String {
        name ?? "(unnamed, depth \(depth))"
    }
}
