// The derivations that override one thing: a value, a transformed value, or an object.

// MARK: - Deriving a child

extension Context {
    /// Derives a child context that overrides one value, like SwiftUI's `environment(_:_:)`.
    ///
    /// ```swift
    /// let verbose = app.child(\.verbosity, 2)
    /// ```
    ///
    /// - Parameters:
    ///   - keyPath: The value to override, as a property of ``ContextValues``.
    ///   - value: The child's value there.
    ///   - name: A name for diagnostics.
    /// - Returns: The new child.
    /// - Complexity: O(1), as ``child(name:_:)``. The value it replaces is not read: a default is not
    ///   computed, and a provider does not build, for a value overridden here through one property of
    ///   ``ContextValues`` (`\.level`, not a path into a value such as `\.limits.timeout`, whose value
    ///   the rest of the path changes part of) that reads and writes its key's own value.
    @inlinable
    public func child<Value>(
        _ keyPath: WritableKeyPath<ContextValues, Value>,
        _ value: Value,
        name: String? = nil
    ) -> Context {
        child(name: name) { values in
            // As `values.assign(value, at: keyPath)`, spelled out: an optimized build that knows the key
            // path here calls the property's setter directly.
            let assignment = values.beginAssignment(of: value, at: keyPath)
            values[keyPath: keyPath] = value
            values.endAssignment(assignment, of: value, at: keyPath)
        }
    }

    /// Derives a child context whose value at `keyPath` is the inherited value transformed by
    /// `transform`, like SwiftUI's `transformEnvironment(_:transform:)`.
    ///
    /// ```swift
    /// let audited = app.child(transforming: \.tags) { $0.append("audit") }
    /// ```
    ///
    /// - Parameters:
    ///   - keyPath: The value to transform, as a property of ``ContextValues``.
    ///   - name: A name for diagnostics.
    ///   - transform: Changes the inherited value in place.
    /// - Returns: The new child.
    public func child<Value>(
        transforming keyPath: WritableKeyPath<ContextValues, Value> & Sendable,
        name: String? = nil,
        _ transform: @escaping @Sendable (inout Value) -> Void
    ) -> Context {
        let transform = ValueTransform { inherited in
            var value = inherited[keyPath: keyPath]
            transform(&value)
            var values = inherited
            values[keyPath: keyPath] = value
            return values.own
        }
        return makeChild(name: name, isScope: false, transforms: [transform]) { values in
            values.own = transform.entries(over: values.inherited, origin: values.origin)
        }
    }

    /// Derives a child context that provides `object` under its own type (or under `type`), like
    /// SwiftUI's `environment(_ object:)`.
    ///
    /// ```swift
    /// let app = Context(name: "app").child(providing: Database(url: url))
    /// let store = app.child(providing: PostgresStore(), as: (any Store).self)
    /// ```
    ///
    /// - Parameters:
    ///   - object: The object to provide.
    ///   - type: The type to provide it under: its own by default, or a protocol it conforms to.
    ///   - name: A name for diagnostics.
    /// - Returns: The new child.
    public func child<Object: Sendable>(
        providing object: Object,
        as type: Object.Type = Object.self,
        name: String? = nil
    ) -> Context {
        child(name: name) { $0.provide(object, as: type) }
    }
}
