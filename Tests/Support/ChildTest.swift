import Foundation

/// One test of the running test binary, run again in a process of its own: for measurements the other tests running
/// in parallel would spoil (heap in use, open descriptors, threads). The child sees `variable` = "1" in its
/// environment, which is how such a test knows to run (`.enabled(if:)`) — and the parent that it must not.
public enum ChildTest {
    /// Runs the tests matching `filter` in a child (bounded by `timeout` like every process a test starts).
    public static func run(filter: String, marking variable: String, timeout: TimeInterval) throws -> ProcessResult {
        var environment = ProcessInfo.processInfo.environment
        environment[variable] = "1"
        let binary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        return try Tool.run(binary, ["--testing-library", "swift-testing", "--filter", filter], timeout: timeout,
                            environment: environment)
    }
}
