// What is read from an image once per process, by the image's path.

import Contextual

// MARK: - ImageCache

/// Values read from images, one per image's path, each read once per process (under a lock): a mapped
/// image, its symbols, its line tables. An image that has none keeps `nil`, and is not read again.
///
/// The cache's one lock is held while an image is read, so a look-up of any image waits while one
/// is read: simple, and acceptable for what is read once per image and process, on the path of a failing
/// test.
///
/// ```swift
/// static let images = ImageCache<MappedImage>()
/// let image = images.value(forImageAt: path, reading: MappedImage.init(imageAt:))
/// ```
struct ImageCache<Value: Sendable>: Sendable {
    /// The values read so far, by path.
    private let values = Locked<[String: Value?]>.make([:])

    /// The value of the image at `path`, read by `read` the first time it is asked for.
    func value(forImageAt path: String, reading read: (String) -> Value?) -> Value? {
        values.withLock { values in
            if let known = values[path] { return known }
            let value = read(path)
            values[path] = value
            return value
        }
    }
}
