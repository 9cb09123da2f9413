// The running thread's stack, from the C library's unwinder, each frame named from its image's symbol
// table: what finding an unimplemented read's line needs, without the toolchain's backtracer, whose first
// capture in a process reads the symbol tables of the stack's images (about 20 ms in a test binary).

import Contextual
import Runtime

#if canImport(Glibc)
import Glibc
#endif

// MARK: - NativeStack

/// Captures the running thread's stack, innermost frame first.
enum NativeStack {
    /// The frames of the running thread's stack, innermost first, from the caller of this function: at
    /// most `limit`.
    ///
    /// With the GNU C library on a 64-bit platform, the stack is unwound by its `backtrace`, from the
    /// unwind tables (the physical stack: an asynchronous function's callers that are suspended are not on
    /// it, but the frame that reads, which runs, always is); the frames of images that
    /// `namedFromSymbolTable` accepts are named from their symbol tables (``ImageSymbols``), once per
    /// address and process, the others only from their exported symbols (which name the exported
    /// functions of the toolchain's libraries, such as the standard library's key path functions, and
    /// nothing else). Elsewhere (musl, a static executable without `dladdr1`), the Runtime module's
    /// backtracer captures and names the stack.
    ///
    /// - Complexity: O(f) in the frames, plus, for each image, one pass over its symbol table when one of
    ///   its addresses was not named before.
    @inline(never)
    static func capture(limit: Int = 128, namedFromSymbolTable: (StackFrame.Image) -> Bool) -> [StackFrame] {
        let limit = min(max(limit, 0), 4096)
        #if canImport(Glibc) && _pointerBitWidth(_64)
        // `returnAddresses`, `unwound` and this function are the first three frames when unnamed.
        if let unwound = unwound(limit: limit + ownFrames.count, namedFromSymbolTable: namedFromSymbolTable) {
            let frames = fromCaller(unwound, unnamedOwnFrames: 3, limit: limit)
            if !frames.isEmpty || limit == 0 { return frames }
        }
        #endif
        return captureThroughRuntime(limit: limit)
    }

    /// The frames of the running thread's stack, as ``capture(limit:namedFromSymbolTable:)`` gives them
    /// where the C library cannot unwind: captured and named by the Runtime module's backtracer.
    @inline(never)
    static func captureThroughRuntime(limit: Int = 128) -> [StackFrame] {
        let limit = min(max(limit, 0), 4096)
        // `symbolicated` and this function are the first two frames when unnamed.
        return fromCaller(symbolicated(limit: limit + ownFrames.count), unnamedOwnFrames: 2, limit: limit)
    }

    /// How this type's own frames are told apart: the most frames above the caller's (this type's and an
    /// interceptor's) that may be dropped, and the start of the mangled names of its functions.
    private static let ownFrames = (count: 4, prefix: "$s17ContextualTesting11NativeStackO")

    /// `frames` from the caller of ``capture(limit:namedFromSymbolTable:)`` on, at most `limit`: past this
    /// type's functions, and past whatever runs before them (a sanitizer's interceptor of `backtrace` is a
    /// frame of its own); without their names, past the first `unnamedOwnFrames`.
    private static func fromCaller(_ frames: [StackFrame], unnamedOwnFrames: Int, limit: Int) -> [StackFrame] {
        let own = frames.prefix(ownFrames.count).lastIndex { $0.symbol?.rawName.hasPrefix(ownFrames.prefix) == true }
        return Array(frames.dropFirst(own.map { $0 + 1 } ?? unnamedOwnFrames).prefix(limit))
    }

    /// Serializes the toolchain's symbolication, whose caches are not safe to fill from several threads
    /// at once (frames of the standard library then lose their symbols): every use of it in this module,
    /// and its tests, holds this lock.
    static let symbolication = Locked.make(())

    /// The stack as the Runtime module's backtracer captures and names it, from this function on (its
    /// first frame is its own): at most `limit` frames, innermost first, none omitted.
    @inline(never)
    private static func symbolicated(limit: Int) -> [StackFrame] {
        guard let backtrace = try? Backtrace.capture(limit: limit, top: 0),
            let symbolicated = symbolication.withLock({ _ in backtrace.symbolicated(options: []) })
        else { return [] }
        let images = symbolicated.images
        return symbolicated.frames.compactMap { frame in
            // A marker of frames left out or of a stack cut short has no address.
            guard let address = UInt64(frame.captured.adjustedProgramCounter).map({ UInt(truncatingIfNeeded: $0) }),
                address != 0
            else { return nil }
            guard let symbol = frame.symbol, images.indices.contains(symbol.imageIndex),
                let path = images[symbol.imageIndex].path, let base = UInt64(images[symbol.imageIndex].baseAddress)
            else { return StackFrame(address: address) }
            return StackFrame(
                address: address,
                image: StackFrame.Image(path: path, name: symbol.imageName, base: UInt(truncatingIfNeeded: base)),
                symbol: StackFrame.Symbol(rawName: symbol.rawName, name: symbol.name)
            )
        }
    }

    #if canImport(Glibc) && _pointerBitWidth(_64)
    // MARK: - The C library's functions

    /// `int backtrace(void **buffer, int size)`.
    private typealias BacktraceFunction =
        @convention(c) (UnsafeMutablePointer<UnsafeMutableRawPointer?>, Int32) -> Int32
    /// `int dladdr1(const void *address, Dl_info *info, void **extra, int flags)`.
    private typealias AddressInfo =
        @convention(c) (
            UnsafeRawPointer?, UnsafeMutableRawPointer, UnsafeMutablePointer<UnsafeRawPointer?>, Int32
        ) -> Int32
    /// `char *_swift_backtrace_demangle(const char *name, size_t length, char *buffer, size_t *size)`, the
    /// runtime's demangling as its backtraces show names (a buffer it allocates when `buffer` is null).
    private typealias Demangle =
        @convention(c) (
            UnsafePointer<CChar>?, Int, UnsafeMutablePointer<CChar>?, UnsafeMutablePointer<Int>?
        ) -> UnsafeMutablePointer<CChar>?

    /// The stack as the C library's `backtrace` unwinds it, from `returnAddresses` (or an interceptor of
    /// `backtrace` above it) on, named as ``capture(limit:namedFromSymbolTable:)`` says: at most `limit`
    /// frames; `nil` where `backtrace` or `dladdr1` is not found, or `backtrace` finds no frame.
    private static func unwound(limit: Int, namedFromSymbolTable: (StackFrame.Image) -> Bool) -> [StackFrame]? {
        guard let addressInfo = cFunction("dladdr1", as: AddressInfo.self) else { return nil }
        let addresses = returnAddresses(limit: limit)
        guard !addresses.isEmpty else { return nil }
        var frames: [StackFrame] = []
        var exported: [Int: String] = [:]
        var images: [UInt: StackFrame.Image] = [:]
        for address in addresses {
            let call = address &- 1
            var info: (UnsafePointer<CChar>?, UnsafeRawPointer?, UnsafePointer<CChar>?, UnsafeRawPointer?) =
                (nil, nil, nil, nil)
            var entry: UnsafeRawPointer?
            let found = withUnsafeMutableBytes(of: &info) { info in
                // RTLD_DL_SYMENT (1): `entry` is the exported symbol's ELF entry, whose size says whether it
                // covers the address or only precedes it.
                addressInfo(UnsafeRawPointer(bitPattern: call), info.baseAddress.unsafelyUnwrapped, &entry, 1)
            }
            guard found != 0, let path = info.0, let base = info.1 else {
                frames.append(StackFrame(address: call))
                continue
            }
            let baseAddress = UInt(bitPattern: base)
            let image = images[baseAddress] ?? Self.image(named: String(cString: path), base: baseAddress)
            images[baseAddress] = image
            if let name = info.2, let start = info.3, let entry,
                UInt64(call &- UInt(bitPattern: start)) < entry.load(fromByteOffset: 16, as: UInt64.self)
            {
                exported[frames.count] = String(cString: name)
            }
            frames.append(StackFrame(address: call, image: image))
        }
        // The frames of each image named from its symbol table at once: one pass over the table.
        var rawNames = exported
        for image in Set(frames.compactMap(\.image)) where namedFromSymbolTable(image) {
            guard let symbols = ImageSymbols.shared(forImageAt: image.path) else { continue }
            let indices = frames.indices.filter { frames[$0].image == image }
            let names = symbols.names(at: indices.map { UInt64(frames[$0].address &- image.base) })
            for index in indices {
                if let name = names[UInt64(frames[index].address &- image.base)] ?? nil { rawNames[index] = name }
            }
        }
        let demangle = cFunction("_swift_backtrace_demangle", as: Demangle.self)
        for (index, rawName) in rawNames {
            frames[index].symbol = StackFrame.Symbol(rawName: rawName, name: demangled(rawName, with: demangle))
        }
        return frames
    }

    /// The function named `name` in the process's images, as `type`; `nil` if none is loaded. Neither
    /// `backtrace` nor `dladdr1` is in the Glibc module (their headers need `_GNU_SOURCE` or are not part
    /// of it), and the demangler is the runtime's.
    private static func cFunction<Function>(_ name: String, as type: Function.Type) -> Function? {
        // RTLD_DEFAULT is the null handle: every image loaded, in load order.
        guard let symbol = dlsym(nil, name) else { return nil }
        return unsafeBitCast(symbol, to: type)
    }

    /// The return addresses of the running thread's stack, innermost first: the first is in this
    /// function (or in an interceptor of `backtrace`, which this function then follows), at most `limit`.
    @inline(never)
    private static func returnAddresses(limit: Int) -> [UInt] {
        guard let backtrace = cFunction("backtrace", as: BacktraceFunction.self) else { return [] }
        var buffer = [UnsafeMutableRawPointer?](repeating: nil, count: limit)
        let count = Int(backtrace(&buffer, Int32(clamping: limit)))
        return buffer.prefix(max(0, count)).map { UInt(bitPattern: $0) }
    }

    /// The image whose path the dynamic linker gives as `path`, loaded at `base`: the main executable's is
    /// the path it was started by (`argv[0]`, perhaps relative to a directory since left), read from
    /// `/proc/self/exe` instead.
    private static func image(named path: String, base: UInt) -> StackFrame.Image {
        var path = path
        if !path.hasPrefix("/"), path == CommandLine.arguments.first, let executable = executablePath() {
            path = executable
        }
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return StackFrame.Image(path: path, name: name, base: base)
    }

    /// The main executable's path, from `/proc/self/exe`.
    private static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `rawName` as the runtime's backtraces show it, or `rawName` itself when `demangle` cannot say.
    private static func demangled(_ rawName: String, with demangle: Demangle?) -> String {
        guard let demangle else { return rawName }
        let result = rawName.withCString { demangle($0, strlen($0), nil, nil) }
        guard let result else { return rawName }
        defer { free(result) }
        return String(cString: result)
    }
    #endif
}
