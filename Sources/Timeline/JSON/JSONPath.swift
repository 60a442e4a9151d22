/// Where a value sits in a JSON document, written as a JSONPath (RFC 9535 normalized path, shorthand form):
/// `$.items[2].transition.duration`. Every timeline error carries one, so a person finds the value to fix.
public struct JSONPath: Sendable, Hashable, CustomStringConvertible {
    public enum Component: Sendable, Hashable {
        case key(String)
        case index(Int)
    }

    public private(set) var components: [Component]

    public init(_ components: [Component] = []) {
        self.components = components
    }

    public static let root = JSONPath()

    public func appending(_ key: String) -> JSONPath {
        JSONPath(components + [.key(key)])
    }

    public func appending(_ index: Int) -> JSONPath {
        JSONPath(components + [.index(index)])
    }

    public var description: String {
        var text = "$"
        for component in components {
            switch component {
            case let .key(key):
                let plain = !key.isEmpty && key.unicodeScalars.allSatisfy {
                    ($0.properties.isAlphabetic && $0.isASCII) || $0 == "_" || ("0"..."9").contains($0)
                }
                text += plain ? ".\(key)" : "['\(key.replacing("'", with: "\\'"))']"
            case let .index(index):
                text += "[\(index)]"
            }
        }
        return text
    }
}
