// The error of a configuration source that `ConfigurationMapping` could not apply.
// Architecture: ARCHITECTURE.md, "Configuration mappings".

// MARK: - Invalid configuration

extension ContextError {
    /// A configuration source that failed `failures` (reads and rules), for the contexts `searched`.
    static func invalidConfiguration(_ failures: [ConfigurationFailure], searched: [String]) -> ContextError {
        let problems = failures.map { failure -> String in
            switch failure {
            case .read(let name, let valueType, let error):
                return "'\(name)' (\(valueType)): \(describe(error))"
            case .rule(let description):
                return "the rule \"\(description)\" is broken"
            }
        }
        let count = problems.count == 1 ? "one problem" : "\(problems.count) problems"
        let place = searched.isEmpty ? "" : " to '\(searched[0])'"
        let underlying = failures.compactMap { failure -> (any Error)? in
            if case .read(_, _, let error) = failure { return error }
            return nil
        }
        return ContextError(
            code: .invalidConfiguration,
            requestedType: nil,
            searchedContexts: searched,
            message: "the configuration was not applied\(place): \(count): "
                + problems.joined(separator: "; ")
                + ". Nothing was changed: the values set before stay. Fix: correct the configuration source; "
                + "the next valid one is applied whole.",
            underlyingErrors: underlying
        )
    }

    /// An error in words, without a trailing period (the message adds its own punctuation).
    private static func describe(_ error: any Error) -> String {
        var text = String(describing: error)
        while text.hasSuffix(".") { text.removeLast() }
        return text
    }
}
