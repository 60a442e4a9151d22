/// Corner tracks as written: inline in a timeline, or a track file in CSV or JSON. Every error names where the bad
/// key is (the JSON path, and for a file the file and line or the path inside it) and what was expected.
///
/// CSV: one key per line, `frame,tl_x,tl_y,tr_x,tr_y,br_x,br_y,bl_x,bl_y` (corners top left, top right, bottom
/// right, bottom left); blank lines and lines starting with `#` are skipped, and a first line that does not start
/// with a number is a header. JSON: an array of `{"frame": N, "points": [[x, y], [x, y], [x, y], [x, y]]}`, the
/// same as inline. Frames ascend strictly.
extension CornerTrack {
    /// Parses a track file's bytes: JSON when the first non-blank byte is `[`, else CSV.
    /// - Parameters:
    ///   - name: the file as the user named it, for messages.
    ///   - path: the JSON path of the timeline value that names the file.
    public static func parseFile(_ bytes: [UInt8], name: String, path: String) throws(TimelineError) -> [CornerKey] {
        let first = bytes.first { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }
        if first == UInt8(ascii: "[") {
            let document: JSONValue
            do {
                document = try JSONParser.parse(bytes)
            } catch {
                throw TimelineError(code: .invalidTimeline, reason: "\(name): \(error.reason)", path: path)
            }
            do {
                return try decodeKeys(document, at: .root)
            } catch {
                throw TimelineError(code: error.code, reason: "\(name) \(error.path ?? "$"): \(error.reason)",
                                       path: path)
            }
        }
        return try parseCSV(bytes, name: name, path: path)
    }

    static func parseCSV(_ bytes: [UInt8], name: String, path: String) throws(TimelineError) -> [CornerKey] {
        var keys: [CornerKey] = []
        var sawData = false
        for (index, rawLine) in bytes.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            let line = trim(String(decoding: rawLine, as: UTF8.self), " \t\r\u{FEFF}")
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
                .map { trim($0, " \t") }
            func fail(_ reason: String) -> TimelineError {
                TimelineError(code: .invalidTimeline, reason: "\(name) line \(index + 1): \(reason)", path: path)
            }
            if !sawData, let head = fields.first, Int(head) == nil, Double(head) == nil {
                sawData = true // a header line
                continue
            }
            sawData = true
            guard fields.count == 9 else {
                throw fail("expected 9 comma-separated values (frame, then x and y of the top-left, top-right, "
                           + "bottom-right and bottom-left corners), got \(fields.count)")
            }
            guard let frame = Int(fields[0]), TimelineLimits.cornerFrames.contains(frame) else {
                throw fail("frame \"\(fields[0])\" is not an integer in 0…\(TimelineLimits.cornerFrames.upperBound)")
            }
            var coordinates: [Double] = []
            for field in fields.dropFirst() {
                guard let value = Double(field), TimelineLimits.cornerCoordinates.contains(value) else {
                    throw fail("\"\(field)\" is not a coordinate (a number of pixels in "
                               + "\(Int(TimelineLimits.cornerCoordinates.lowerBound))…\(Int(TimelineLimits.cornerCoordinates.upperBound)))")
                }
                coordinates.append(value)
            }
            if let last = keys.last, frame <= last.frame {
                throw fail("frame \(frame) after frame \(last.frame): frames must ascend")
            }
            guard keys.count < TimelineLimits.maximumCornerKeys else {
                throw TimelineError(code: .limitExceeded, reason: "\(name): more than \(TimelineLimits.maximumCornerKeys) keys",
                                       path: path)
            }
            keys.append(CornerKey(frame: frame, quad: Quad(coordinates)))
        }
        guard !keys.isEmpty else {
            throw TimelineError(code: .invalidTimeline, reason: "\(name): no keys (a corner track needs at least one)",
                                   path: path)
        }
        return keys
    }

    /// An array of `{"frame": N, "points": [[x, y] × 4]}`, frames ascending, at least one.
    static func decodeKeys(_ value: JSONValue, at path: JSONPath) throws(TimelineError) -> [CornerKey] {
        guard case let .array(elements) = value else {
            throw .invalid(path, "expected an array of {\"frame\", \"points\"} keys, got \(value.kindName)")
        }
        guard !elements.isEmpty else { throw .invalid(path, "a corner track needs at least one key") }
        guard elements.count <= TimelineLimits.maximumCornerKeys else {
            throw TimelineError(code: .limitExceeded,
                                   reason: "\(elements.count) keys exceed \(TimelineLimits.maximumCornerKeys)",
                                   path: path.description)
        }
        var keys: [CornerKey] = []
        keys.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            let object = try JSONObject(element, at: path.appending(index))
            try object.refuseUnknownKeys(["frame", "points"])
            let frame = try object.integer("frame", in: TimelineLimits.cornerFrames)
            if let last = keys.last, frame <= last.frame {
                throw .invalid(object.path.appending("frame"), "frame \(frame) after frame \(last.frame): frames must ascend")
            }
            let pointsPath = object.path.appending("points")
            let points = try object.array("points")
            guard points.count == 4 else {
                throw .invalid(pointsPath, "expected 4 points (top left, top right, bottom right, bottom left), got \(points.count)")
            }
            var coordinates: [Double] = []
            for (pointIndex, point) in points.enumerated() {
                let pointPath = pointsPath.appending(pointIndex)
                guard case let .array(pair) = point, pair.count == 2 else {
                    throw .invalid(pointPath, "expected [x, y]")
                }
                for (axis, number) in pair.enumerated() {
                    guard case let .number(text) = number, let value = Double(text),
                          TimelineLimits.cornerCoordinates.contains(value) else {
                        throw .invalid(pointPath.appending(axis), "expected a number of pixels in "
                                       + "\(Int(TimelineLimits.cornerCoordinates.lowerBound))…\(Int(TimelineLimits.cornerCoordinates.upperBound))")
                    }
                    coordinates.append(value)
                }
            }
            keys.append(CornerKey(frame: frame, quad: Quad(coordinates)))
        }
        return keys
    }
}

/// `text` without leading and trailing characters of `set`.
private func trim(_ text: some StringProtocol, _ set: String) -> String {
    let characters = Set(set)
    var slice = Substring(text)
    while let first = slice.first, characters.contains(first) { slice = slice.dropFirst() }
    while let last = slice.last, characters.contains(last) { slice = slice.dropLast() }
    return String(slice)
}
