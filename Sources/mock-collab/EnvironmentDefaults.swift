import Foundation
import Synchronization

/// The `MOCK_COLLAB_*` environment variables `serve` takes as option defaults, read so that a value
/// that does not parse is an error at start (as the same value as a flag is), never a silent default:
/// a container configured only by its environment must not serve plain HTTP for `MOCK_COLLAB_TLS=maybe`
/// or bind 8080 for `MOCK_COLLAB_PORT=abc`. An empty variable counts as unset (a CI template that
/// leaves it blank).
enum EnvironmentDefaults {
    private static let environment = ProcessInfo.processInfo.environment
    private static let problems = Mutex<[String]>([])

    /// The variable's text; `nil` when unset or empty.
    static func string(_ name: String) -> String? {
        guard let value = environment[name], !value.isEmpty else { return nil }
        return value
    }

    /// The variable as `T` (a whole or decimal number), else `fallback`; a value that does not parse
    /// is noted for ``check()``.
    static func value<T: LosslessStringConvertible>(_ name: String, _ fallback: T) -> T {
        guard let text = string(name) else { return fallback }
        guard let value = T(text.trimmingCharacters(in: .whitespaces)) else {
            note(name, text, expected: T.self == Double.self ? "number" : "whole number")
            return fallback
        }
        return value
    }

    /// The variable as `T`, `nil` when unset or empty (for an option whose default is computed); a value
    /// that does not parse is noted for ``check()`` and counts as unset.
    static func optional<T: LosslessStringConvertible>(_ name: String) -> T? {
        guard let text = string(name) else { return nil }
        guard let value = T(text.trimmingCharacters(in: .whitespaces)) else {
            note(name, text, expected: T.self == Double.self ? "number" : "whole number")
            return nil
        }
        return value
    }

    private static func note(_ name: String, _ text: String, expected: String) {
        problems.withLock { problems in
            let problem = "\(name)='\(text)' is not a valid \(expected)"
            if !problems.contains(problem) { problems.append(problem) }
        }
    }

    /// The variable as a switch: 1/true/yes or 0/false/no (any case); anything else is noted.
    static func flag(_ name: String) -> Bool {
        guard let text = string(name)?.lowercased() else { return false }
        if ["1", "true", "yes"].contains(text) { return true }
        if ["0", "false", "no"].contains(text) { return false }
        problems.withLock { $0.append("\(name)='\(text)' is not one of 1, true, yes, 0, false, no") }
        return false
    }

    /// Throws the variables that did not parse, all of them in one message.
    static func check() throws(EnvironmentError) {
        let found = problems.withLock { $0 }
        guard found.isEmpty else { throw EnvironmentError(problems: found) }
    }

    struct EnvironmentError: Error, CustomStringConvertible {
        var problems: [String]
        var description: String { "invalid environment: " + problems.joined(separator: "; ") }
    }
}
