import Foundation
import Testing
@testable import Composition
@testable import Timeline

/// The schema's overlay definitions are the parser's, and the overlay example plans with its track file.
@Suite struct OverlaySchemaTests {
    static let root = SchemaAndExampleTests.root

    @Test func schemaOverlayKeysAreTheParsers() throws {
        let schema = try #require(try JSONSerialization.jsonObject(
            with: Data(contentsOf: Self.root.appendingPathComponent("docs/timeline.schema.json"))) as? [String: Any])
        let definitions = try #require(schema["$defs"] as? [String: Any])
        let overlay = try #require(definitions["overlay"] as? [String: Any])
        let properties = try #require(overlay["properties"] as? [String: Any])
        #expect(Set(properties.keys) == Set(Timeline.overlayKeys))
        let mask = try #require(properties["mask"] as? [String: Any])
        #expect(Set(try #require(mask["properties"] as? [String: Any]).keys) == ["source", "in"])
        let key = try #require(definitions["cornerKey"] as? [String: Any])
        #expect(Set(try #require(key["properties"] as? [String: Any]).keys) == ["frame", "points"])
        let root = try #require(schema["properties"] as? [String: Any])
        #expect(root["overlays"] != nil)
    }

    @Test func overlayExamplePlansAndItsTrackParses() throws {
        let directory = Self.root.appendingPathComponent("examples")
        let timeline = try Timeline.parse([UInt8](Data(contentsOf: directory.appendingPathComponent("overlays.json"))))
        let plan = try CompositionPlan(timeline)
        #expect(plan.duration == Fraction(27, 2))
        #expect(plan.overlaySpans.map(\.end) == [Fraction(27, 2), Fraction(27, 2), Fraction(6)])
        // The poster (picture and mask) and the logo from 6.5 s; the logo and the lower third before.
        #expect(plan.maximumOverlayReaders == 3)
        guard case let .cornerPin(.file(name), _) = timeline.overlays[0].geometry else {
            Issue.record("the first overlay is corner-pinned from a track file")
            return
        }
        let keys = try CornerTrack.parseFile([UInt8](Data(contentsOf: directory.appendingPathComponent(name))),
                                             name: name, path: "$.overlays[0].corner_pin")
        #expect(keys.map(\.frame) == [0, 30, 60, 90, 179])
    }
}
