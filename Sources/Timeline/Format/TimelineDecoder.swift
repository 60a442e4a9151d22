/// Turns a parsed JSON document into a `Timeline`, refusing anything that is not one with the JSON path and the
/// reason: missing and unknown keys, wrong types, values out of range. The schema is docs/timeline.schema.json.
extension Timeline {
    /// Parses a timeline document (UTF-8 JSON).
    public static func parse(_ bytes: [UInt8]) throws(TimelineError) -> Timeline {
        try decode(JSONParser.parse(bytes))
    }

    public static func parse(_ text: String) throws(TimelineError) -> Timeline {
        try parse(Array(text.utf8))
    }

    public static func decode(_ document: JSONValue) throws(TimelineError) -> Timeline {
        let root = try JSONObject(document, at: .root)
        try root.refuseUnknownKeys(["version", "canvas", "items", "loop", "overlays"])
        let version = try root.integer("version", in: 0...Int(Int32.max))
        guard version == currentVersion else {
            throw TimelineError(code: .unsupportedVersion,
                                   reason: "version \(version) is not supported (this build reads version \(currentVersion))",
                                   path: root.path.appending("version").description)
        }
        let canvas = try decodeCanvas(root.object("canvas"))
        let itemsPath = root.path.appending("items")
        let itemValues = try root.array("items")
        guard !itemValues.isEmpty else { throw .invalid(itemsPath, "a timeline needs at least one item") }
        guard itemValues.count <= TimelineLimits.maximumItems else {
            throw TimelineError(code: .limitExceeded,
                                   reason: "\(itemValues.count) items exceed \(TimelineLimits.maximumItems)",
                                   path: itemsPath.description)
        }
        var items: [Item] = []
        for (index, value) in itemValues.enumerated() {
            items.append(try decodeItem(JSONObject(value, at: itemsPath.appending(index)), isLast: index == itemValues.count - 1))
        }
        let loop = try root.optionalBool("loop") ?? false
        let overlays = try decodeOverlays(root)
        let timeline = Timeline(canvas: canvas, items: items, loop: loop, overlays: overlays)
        _ = try CompositionPlan(timeline) // transitions against their neighbours, named by path
        return timeline
    }

    private static func decodeCanvas(_ object: JSONObject) throws(TimelineError) -> Canvas {
        try object.refuseUnknownKeys(["width", "height", "frame_rate", "background"])
        let width = try object.integer("width", in: TimelineLimits.canvasSides)
        let height = try object.integer("height", in: TimelineLimits.canvasSides)
        guard width % 2 == 0, height % 2 == 0 else {
            throw .invalid(object.path.appending(width % 2 == 0 ? "height" : "width"),
                           "canvas sides must be even (4:2:0 chroma), got \(width)x\(height)")
        }
        let rate = try object.fraction("frame_rate")
        guard TimelineLimits.frameRate.contains(rate) else {
            throw .invalid(object.path.appending("frame_rate"),
                           "frame rate \(rate) is outside \(TimelineLimits.frameRate.lowerBound)…\(TimelineLimits.frameRate.upperBound) fps")
        }
        let background = try object.optionalColor("background") ?? .black
        return Canvas(width: width, height: height, frameRate: rate, background: background)
    }

    private static func decodeItem(_ object: JSONObject, isLast: Bool) throws(TimelineError) -> Item {
        let type = try object.string("type")
        let content: Item.Content
        let common = ["type", "duration", "flip", "rotate", "fit", "letterbox", "transition"]
        switch type {
        case "clip":
            try object.refuseUnknownKeys(common + ["source", "in", "speed", "reverse"])
            let start = try object.optionalFraction("in") ?? .zero
            guard start >= .zero, start <= TimelineLimits.maximumSeconds else {
                throw .invalid(object.path.appending("in"), "in must be 0…\(TimelineLimits.maximumSeconds) s, got \(start)")
            }
            content = .clip(source: try object.nonEmptyString("source"), in: start)
        case "still":
            try object.refuseUnknownKeys(common + ["source"])
            content = .still(source: try object.nonEmptyString("source"))
        case "color":
            try object.refuseUnknownKeys(common + ["color"])
            guard let color = try object.optionalColor("color") else {
                throw .invalid(object.path.appending("color"), "missing: a color item needs \"color\": \"#RRGGBB\"")
            }
            content = .color(color)
        default:
            throw .invalid(object.path.appending("type"), "unknown item type \"\(type)\" (expected clip, still or color)")
        }
        let duration = try object.fraction("duration")
        guard duration > .zero, duration <= TimelineLimits.maximumSeconds else {
            throw .invalid(object.path.appending("duration"),
                           "duration must be more than 0 and at most \(TimelineLimits.maximumSeconds) s, got \(duration)")
        }
        let speed = try object.optionalFraction("speed") ?? .one
        guard TimelineLimits.speed.contains(speed) else {
            throw .invalid(object.path.appending("speed"), "speed \(speed) is outside 1/100…100")
        }
        let reverse = try object.optionalBool("reverse") ?? false
        var item = Item(content: content, duration: duration, speed: speed, reverse: reverse)
        item.flip = switch try object.optionalString("flip") ?? "none" {
        case "none": []
        case "horizontal": .horizontal
        case "vertical": .vertical
        case "both": [.horizontal, .vertical]
        case let other:
            throw .invalid(object.path.appending("flip"), "unknown flip \"\(other)\" (expected none, horizontal, vertical or both)")
        }
        let degrees = try object.optionalInteger("rotate", in: 0...270) ?? 0
        guard let rotation = Rotation(rawValue: degrees) else {
            throw .invalid(object.path.appending("rotate"), "rotate must be 0, 90, 180 or 270, got \(degrees)")
        }
        item.rotation = rotation
        let fitName = try object.optionalString("fit") ?? "contain"
        guard let fit = Fit(rawValue: fitName) else {
            throw .invalid(object.path.appending("fit"), "unknown fit \"\(fitName)\" (expected contain, cover or stretch)")
        }
        item.fit = fit
        item.letterbox = try object.optionalColor("letterbox")
        if let transition = try object.optionalObject("transition") {
            guard !isLast else {
                throw .invalid(transition.path, "the last item has no next item to transition into")
            }
            item.transition = try decodeTransition(transition)
        }
        return item
    }

    private static func decodeTransition(_ object: JSONObject) throws(TimelineError) -> Transition {
        let name = try object.string("type")
        guard let kind = Transition.Kind(rawValue: name) else {
            let names = Transition.Kind.allCases.map(\.rawValue)
            throw .invalid(object.path.appending("type"), "unknown transition \"\(name)\" (expected "
                           + names.dropLast().joined(separator: ", ") + " or \(names.last!))")
        }
        let common = ["type", "duration", "easing"]
        switch kind {
        case .dissolve, .fadeblack: try object.refuseUnknownKeys(common)
        case .wipe: try object.refuseUnknownKeys(common + ["shape", "direction", "softness", "map", "invert"])
        case .slide, .push: try object.refuseUnknownKeys(common + ["direction"])
        }
        let duration = try object.fraction("duration")
        guard duration > .zero, duration <= TimelineLimits.maximumSeconds else {
            throw .invalid(object.path.appending("duration"), "a transition lasts more than 0 s, got \(duration)")
        }
        let easingName = try object.optionalString("easing") ?? "linear"
        guard let easing = Transition.Easing(rawValue: easingName) else {
            throw .invalid(object.path.appending("easing"), "unknown easing \"\(easingName)\" (expected linear or ease-in-out)")
        }
        var direction: Transition.Direction?
        if kind == .slide || kind == .push {
            direction = try choice(object, "direction", default: .left)
        }
        let wipe = kind == .wipe ? try decodeWipe(object) : nil
        return Transition(kind: kind, duration: duration, easing: easing, wipe: wipe, direction: direction)
    }

    /// A wipe's `shape` and `direction` (or `map`), `softness` and `invert`.
    private static func decodeWipe(_ object: JSONObject) throws(TimelineError) -> Transition.Wipe {
        typealias Wipe = Transition.Wipe
        let shape: Wipe.Shape
        if let map = try object.optionalString("map") {
            for key in ["shape", "direction"] where try object.optionalString(key) != nil {
                throw .invalid(object.path.appending(key), "a wipe with a \"map\" image has no \(key)")
            }
            guard !map.isEmpty else { throw .invalid(object.path.appending("map"), "must not be empty") }
            shape = .image(path: map)
        } else {
            let name = try object.optionalString("shape") ?? "linear"
            switch name {
            case "linear": shape = .linear(try choice(object, "direction", default: .left))
            case "diagonal": shape = .diagonal(try choice(object, "direction", default: .downRight))
            case "iris": shape = .iris(try choice(object, "direction", default: .open))
            case "clock": shape = .clock(try choice(object, "direction", default: .clockwise))
            case "star": shape = .star(try choice(object, "direction", default: .open))
            default:
                throw .invalid(object.path.appending("shape"), "unknown wipe shape \"\(name)\" (expected "
                               + Wipe.shapeNames.joined(separator: ", ") + ", or a \"map\" image instead)")
            }
        }
        let softness = try object.optionalFraction("softness") ?? .zero
        guard softness >= .zero, softness <= .one else {
            throw .invalid(object.path.appending("softness"), "softness must be 0…1, got \(softness)")
        }
        let invert = try object.optionalBool("invert") ?? false
        return Wipe(shape: shape, softness: softness.doubleValue, invert: invert)
    }

    /// One of an enumeration's raw values, naming the valid ones when it is not.
    private static func choice<Value: RawRepresentable & CaseIterable>(
        _ object: JSONObject, _ key: String, default value: Value
    ) throws(TimelineError) -> Value where Value.RawValue == String {
        guard let name = try object.optionalString(key) else { return value }
        guard let chosen = Value(rawValue: name) else {
            let names = Value.allCases.map(\.rawValue)
            throw .invalid(object.path.appending(key), "unknown \(key) \"\(name)\" here (expected "
                           + names.dropLast().joined(separator: ", ") + " or \(names.last!))")
        }
        return chosen
    }
}
