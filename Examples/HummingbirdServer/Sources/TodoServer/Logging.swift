// swift-log: a metadata provider that reads the current context, so every line logged while a request is
// served carries the request's ID, whoever logs it.

import Contextual
import Logging

extension Logger.MetadataProvider {
    /// Adds `request.id` from ``Contextual/Context/current`` to every line, when the current context is a
    /// request's (its `requestID` is set); adds nothing elsewhere.
    ///
    /// ```swift
    /// LoggingSystem.bootstrap(StreamLogHandler.standardOutput, metadataProvider: .contextual)
    /// ```
    public static let contextual = Logger.MetadataProvider {
        let requestID = Context.current[\.requestID]
        return requestID == RequestIDKey.defaultValue ? [:] : ["request.id": .string(requestID)]
    }
}
