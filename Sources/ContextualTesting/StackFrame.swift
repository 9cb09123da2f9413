// A frame of a captured stack: where its code is, in which image, in which function.

// MARK: - StackFrame

/// A frame of a captured stack: where its code is, in which image, in which function.
///
/// ```swift
/// let frames = NativeStack.capture { _ in true }
/// let name = frames.first?.symbol?.name  // the caller of capture
/// ```
struct StackFrame: Sendable {
    /// The image a frame's code is in.
    struct Image: Hashable, Sendable {
        /// The path of its file.
        var path: String
        /// The last component of the path.
        var name: String
        /// Where it is loaded: the address of the start of its mapping. An address less this is an offset
        /// in the image, which its symbols and debug information place by adding the link address of the
        /// loadable segment that maps the start of its file (``MappedImage/linkBase``).
        var base: UInt
    }

    /// A frame's function.
    struct Symbol: Sendable {
        /// Its mangled name.
        var rawName: String
        /// Its name as the runtime's backtraces show it (`Context.subscript.getter`), or the mangled name
        /// when it is no Swift or C++ name.
        var name: String
    }

    /// The address of the call the frame is at: its return address less one, which is within the calling
    /// function and on the call's line.
    var address: UInt
    /// The image, if the dynamic linker knows one at the address.
    var image: Image?
    /// The function, if the image's symbol table (or, for an image that is not named from it, its
    /// exported symbols; elsewhere than with the GNU C library, the Runtime module's symbolication) has
    /// one that covers the address.
    var symbol: Symbol?
}
