// The library's capturing output as the tool's output sink, for the tool's `--dry-run` and its tests.

import Contextual

extension CapturingOutput {
    /// A sink that writes each line to this capture, for ``ContextValues/output``.
    ///
    /// ```swift
    /// let captured = CapturingOutput()
    /// let test = Context(name: "test") { $0.output = captured.sink }
    /// captured.lines  // what the library wrote
    /// ```
    public var sink: OutputSink { OutputSink { line in self.write(line + "\n") } }
}
