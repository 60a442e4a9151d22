/// The `overlays` of a timeline document (docs/timeline.schema.json, `$defs/overlay`), every error with its JSON path.
extension Timeline {
    static func decodeOverlays(_ root: JSONObject) throws(TimelineError) -> [Overlay] {
        guard root.anyValue("overlays") != nil else { return [] }
        let path = root.path.appending("overlays")
        let values = try root.array("overlays")
        guard values.count <= TimelineLimits.maximumOverlays else {
            throw TimelineError(code: .limitExceeded,
                                   reason: "\(values.count) overlays exceed \(TimelineLimits.maximumOverlays)",
                                   path: path.description)
        }
        var overlays: [Overlay] = []
        for (index, value) in values.enumerated() {
            overlays.append(try decodeOverlay(JSONObject(value, at: path.appending(index))))
        }
        return overlays
    }

    /// The members an overlay object may have (docs/timeline.schema.json `$defs/overlay` lists the same).
    static let overlayKeys = ["source", "in", "start", "duration", "x", "y", "width", "height", "corner_pin",
                              "opacity", "mask"]

    private static func decodeOverlay(_ object: JSONObject) throws(TimelineError) -> Overlay {
        try object.refuseUnknownKeys(overlayKeys)
        let source = try object.nonEmptyString("source")
        let sourceStart = try time(object, "in", allowZero: true) ?? .zero
        let start = try time(object, "start", allowZero: true) ?? .zero
        let duration = try time(object, "duration", allowZero: false)
        let size = try decodeSize(object)
        let geometry: Overlay.Geometry
        if let pin = object.anyValue("corner_pin") {
            for key in ["x", "y"] where object.anyValue(key) != nil {
                throw .invalid(object.path.appending(key),
                               "a corner-pinned overlay is placed by its corners: leave out x and y")
            }
            let pinPath = object.path.appending("corner_pin")
            let track: CornerTrack
            switch pin {
            case let .string(file):
                guard !file.isEmpty else { throw .invalid(pinPath, "must not be empty") }
                track = .file(file)
            case .array:
                track = .keys(try CornerTrack.decodeKeys(pin, at: pinPath))
            default:
                throw .invalid(pinPath, "expected a track file name (CSV or JSON) or an array of "
                               + "{\"frame\", \"points\"} keys, got \(pin.kindName)")
            }
            geometry = .cornerPin(track, size: size)
        } else {
            let x = try object.optionalInteger("x", in: TimelineLimits.overlayPositions) ?? 0
            let y = try object.optionalInteger("y", in: TimelineLimits.overlayPositions) ?? 0
            geometry = .rectangle(x: x, y: y, size: size)
        }
        var opacity = 1.0
        if let value = try object.optionalFraction("opacity") {
            guard value >= .zero, value <= .one else {
                throw .invalid(object.path.appending("opacity"), "opacity must be 0…1, got \(value)")
            }
            opacity = value.doubleValue
        }
        var mask: Overlay.Mask?
        if let maskObject = try object.optionalObject("mask") {
            try maskObject.refuseUnknownKeys(["source", "in"])
            mask = Overlay.Mask(source: try maskObject.nonEmptyString("source"),
                                sourceStart: try time(maskObject, "in", allowZero: true) ?? .zero)
        }
        return Overlay(source: source, sourceStart: sourceStart, start: start, duration: duration,
                       geometry: geometry, opacity: opacity, mask: mask)
    }

    /// A time in 0…`maximumSeconds` (above 0 unless `allowZero`).
    private static func time(_ object: JSONObject, _ key: String, allowZero: Bool) throws(TimelineError) -> Fraction? {
        guard let value = try object.optionalFraction(key) else { return nil }
        guard value >= .zero, allowZero || value > .zero, value <= TimelineLimits.maximumSeconds else {
            throw .invalid(object.path.appending(key), "\(key) must be \(allowZero ? "0" : "more than 0") and at most "
                           + "\(TimelineLimits.maximumSeconds) s, got \(value)")
        }
        return value
    }

    /// `width` and `height`: both or neither, even.
    private static func decodeSize(_ object: JSONObject) throws(TimelineError) -> Overlay.Size? {
        let width = try object.optionalInteger("width", in: TimelineLimits.overlaySides)
        let height = try object.optionalInteger("height", in: TimelineLimits.overlaySides)
        switch (width, height) {
        case (nil, nil):
            return nil
        case let (width?, height?):
            guard width % 2 == 0, height % 2 == 0 else {
                throw .invalid(object.path.appending(width % 2 == 0 ? "height" : "width"),
                               "overlay sides must be even (4:2:0 chroma), got \(width)x\(height)")
            }
            return Overlay.Size(width: width, height: height)
        default:
            throw .invalid(object.path.appending(width == nil ? "width" : "height"),
                           "missing: give both width and height, or neither (the source's own size)")
        }
    }
}
