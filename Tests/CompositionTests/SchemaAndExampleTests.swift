import Foundation
import Testing
@testable import Composition
@testable import Timeline

/// docs/timeline.schema.json and examples/ stay true to the parser: every example parses and plans, and the schema's
/// enumerations are the parser's.
@Suite struct SchemaAndExampleTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test func everyExampleParsesAndPlans() throws {
        let directory = Self.root.appendingPathComponent("examples")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".json") }
        #expect(!names.isEmpty)
        for name in names {
            let bytes = try [UInt8](Data(contentsOf: directory.appendingPathComponent(name)))
            let plan = try CompositionPlan(Timeline.parse(bytes))
            #expect(plan.frameCount > 0, "\(name)")
        }
    }

    @Test func theExampleIsTheReadmeOne() throws {
        // The README shows examples/timeline.json in full; what it says about it must hold.
        let plan = try CompositionPlan(Timeline.parse([UInt8](Data(contentsOf: Self.root.appendingPathComponent("examples/timeline.json")))))
        #expect(plan.duration == Fraction(4 + 3 + 2 + 6 + 1) - Fraction(2))
        #expect(plan.frameCount == 420) // 14 s at 30000/1001 fps = 419.58… → 420 frames
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let example = try String(contentsOf: Self.root.appendingPathComponent("examples/timeline.json"), encoding: .utf8)
        #expect(readme.contains(example.trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    @Test func schemaEnumerationsAreTheParsers() throws {
        let schema = try #require(try JSONSerialization.jsonObject(
            with: Data(contentsOf: Self.root.appendingPathComponent("docs/timeline.schema.json"))) as? [String: Any])
        let definitions = try #require(schema["$defs"] as? [String: Any])
        func enumeration(_ definition: String, _ property: String) throws -> [String] {
            let object = try #require(definitions[definition] as? [String: Any])
            let properties = try #require(object["properties"] as? [String: Any])
            let values = try #require((properties[property] as? [String: Any])?["enum"] as? [Any])
            return values.map { "\($0)" }
        }
        #expect(try enumeration("transition", "type") == Timeline.Transition.Kind.allCases.map(\.rawValue))
        #expect(try enumeration("transition", "easing") == Timeline.Transition.Easing.allCases.map(\.rawValue))
        #expect(try enumeration("transition", "shape") == Timeline.Transition.Wipe.shapeNames)
        typealias Wipe = Timeline.Transition.Wipe
        let directions = Timeline.Transition.Direction.allCases.map(\.rawValue) + Wipe.Diagonal.allCases.map(\.rawValue)
            + Wipe.Opening.allCases.map(\.rawValue) + Wipe.Turn.allCases.map(\.rawValue)
        #expect(try enumeration("transition", "direction") == directions)
        #expect(try enumeration("placement", "fit") == Timeline.Fit.allCases.map(\.rawValue))
        #expect(try enumeration("placement", "rotate") == Timeline.Rotation.allCases.map { "\($0.rawValue)" })
        #expect(try enumeration("placement", "flip") == ["none", "horizontal", "vertical", "both"])
        let version = try #require((schema["properties"] as? [String: Any])?["version"] as? [String: Any])
        #expect(version["const"] as? Int == Timeline.currentVersion)
    }
}
