// The dependency graph of a boot report as Graphviz DOT and Mermaid text.

// MARK: - Graph

extension BootReport {
    /// The dependency graph in Graphviz's DOT language: one node per provider (its own time and status),
    /// an edge from each provider to each provider it resolved.
    ///
    /// ```swift
    /// try report.dot.write(toFile: "boot-graph.dot", atomically: true, encoding: .utf8)
    /// // dot -Tsvg boot-graph.dot > boot-graph.svg
    /// ```
    public var dot: String {
        var lines = ["digraph boot {", "    rankdir=LR;", "    node [shape=box];"]
        for provider in providers {
            let attributes = provider.status == .built ? "" : ", color=red"
            let label = nodeLabel(provider, newline: "\\n", escape: escaped)
            lines.append("    \(quoted(provider.id)) [label=\"\(label)\"\(attributes)];")
        }
        for provider in providers {
            for dependency in provider.dependencies {
                lines.append("    \(quoted(provider.id)) -> \(quoted(dependency));")
            }
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The dependency graph as a Mermaid flowchart, which GitHub renders in Markdown (in a `mermaid`
    /// code block): a pull request can show it.
    ///
    /// ```swift
    /// let markdown = "```mermaid\n" + report.mermaid + "```\n"
    /// ```
    public var mermaid: String {
        var lines = ["graph LR"]
        var node: [String: String] = [:]
        for (index, provider) in providers.enumerated() {
            node[provider.id] = "p\(index)"
            let text = nodeLabel(provider, newline: "<br/>") { $0.replacingAll("\"", with: "#quot;") }
            lines.append("    p\(index)[\"\(text)\"]")
        }
        for provider in providers {
            for dependency in provider.dependencies {
                guard let from = node[provider.id], let to = node[dependency] else { continue }
                lines.append("    \(from) --> \(to)")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private func nodeLabel(_ provider: Provider, newline: String, escape: (String) -> String) -> String {
        var text = escape(provider.id) + newline + milliseconds(provider.ownSeconds) + " own"
        if provider.nestedSeconds > 0 { text += ", " + milliseconds(provider.nestedSeconds) + " nested" }
        if provider.status != .built { text += newline + provider.status.rawValue }
        return text
    }

    /// `seconds` in milliseconds to a tenth (`12.3 ms`), whatever a report holds: a time too large for an
    /// integer count of tenths, or not a number (a report built or edited by hand), is shown as Swift
    /// prints it (`1e+18 ms`, `inf ms`, `nan ms`) instead of stopping the process.
    private func milliseconds(_ seconds: Double) -> String {
        let tenths = (seconds * 10_000).rounded()
        // Below 2^53 every integer is exact, and far below `Int.max`.
        guard tenths.magnitude < 9_007_199_254_740_992 else { return "\(seconds * 1000) ms" }
        let count = Int(tenths.magnitude)
        return "\(tenths < 0 ? "-" : "")\(count / 10).\(count % 10) ms"
    }

    private func quoted(_ text: String) -> String {
        "\"" + escaped(text) + "\""
    }

    private func escaped(_ text: String) -> String {
        text.replacingAll("\\", with: "\\\\").replacingAll("\"", with: "\\\"")
    }
}

// MARK: - Replacing text

extension String {
    /// The text with every `target` replaced by `replacement` (without Foundation).
    func replacingAll(_ target: Character, with replacement: String) -> String {
        var result = ""
        for character in self {
            if character == target { result += replacement } else { result.append(character) }
        }
        return result
    }
}
