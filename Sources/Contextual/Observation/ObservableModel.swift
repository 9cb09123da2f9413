// `ObservableModel`: a class whose `@Observed` properties notify their observers, through its registry.

// MARK: - ObservableModel

/// A class whose ``Observed`` properties notify subscribers, through the ``ObservationRegistry`` it owns.
///
/// ```swift
/// final class Library: ObservableModel, @unchecked Sendable {
///     let observationRegistry = ObservationRegistry()
///     @Observed var books: [Book] = []
/// }
///
/// let token = library.observe(\.books) { books in print("now \(books.count) books") }
/// ```
///
/// A property wrapper's storage is a `var`, which a class checked as `Sendable` may not have; declare the
/// model `@unchecked Sendable`. That is sound: each `@Observed` storage is a reference assigned once, in
/// `init`, and its value lives behind that storage's own lock.
public protocol ObservableModel: AnyObject, Sendable {
    /// The registry that the model's ``Observed`` properties report to.
    ///
    /// ```swift
    /// let observationRegistry = ObservationRegistry()
    /// ```
    var observationRegistry: ObservationRegistry { get }
}
