// JSON for `rtenc inspect`: keys are the spec's syntax-element names (H.265 §7.3, §E.2), absent optional fields are
// left out, derived values are added under their own names.
//
// The H.265 structures have many more fields than H.264's, and every stored property already is the syntax
// element's name in camelCase, so instead of a hand-written CodingKeys enum per structure (which drifts from the
// fields), the stored properties are walked with Mirror and each name is spelled in snake_case by one rule.

/// A coding key with any string.
struct SpecNameKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

enum SpecNameEncoding {
    /// Names whose digits the camelCase → snake_case rule would glue to the word before them.
    static let exceptions: [String: String] = [
        "sps3dExtensionFlag": "sps_3d_extension_flag",
        "pps3dExtensionFlag": "pps_3d_extension_flag",
        "spsExtension4bits": "sps_extension_4bits",
        "ppsExtension4bits": "pps_extension_4bits",
    ]

    /// `log2MaxPicOrderCntLsbMinus4` → `log2_max_pic_order_cnt_lsb_minus4`: an underscore before each capital.
    static func snakeCase(_ name: String) -> String {
        if let exception = exceptions[name] { return exception }
        var out = ""
        for character in name {
            if character.isUppercase {
                out += "_" + character.lowercased()
            } else {
                out.append(character)
            }
        }
        return out
    }

    /// Encodes the stored properties of `value` (nil optionals and those in `skipping` left out), then `extra`.
    static func encode(
        _ value: Any, skipping: Set<String> = [], extra: [(String, (any Encodable)?)] = [], to encoder: any Encoder
    ) throws {
        var container = encoder.container(keyedBy: SpecNameKey.self)
        for child in Mirror(reflecting: value).children {
            guard let label = child.label, !skipping.contains(label) else { continue }
            let mirror = Mirror(reflecting: child.value)
            if mirror.displayStyle == .optional, mirror.children.isEmpty { continue }
            guard let encodable = child.value as? any Encodable else { continue }
            try container.encode(encodable, forKey: SpecNameKey(snakeCase(label)))
        }
        for (key, value) in extra {
            if let value { try container.encode(value, forKey: SpecNameKey(key)) }
        }
    }
}

extension HEVC.ProfileTierLevel: Encodable {
    /// Flat, with the general_ / sub_layer_ prefixes the syntax uses, as it sits inline in the VPS and SPS.
    public func encode(to encoder: any Encoder) throws {
        try encodeFields(to: encoder)
    }

    func encodeFields(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: SpecNameKey.self)
        if let general {
            try general.encode(prefix: "general_", into: &container)
        }
        try container.encode(generalLevelIdc, forKey: SpecNameKey("general_level_idc"))
        if !subLayers.isEmpty {
            try container.encode(subLayers, forKey: SpecNameKey("sub_layers"))
        }
    }
}

extension HEVC.ProfileTierLevel.Profile {
    func encode(prefix: String, into container: inout KeyedEncodingContainer<SpecNameKey>) throws {
        try container.encode(profileSpace, forKey: SpecNameKey(prefix + "profile_space"))
        try container.encode(tierFlag, forKey: SpecNameKey(prefix + "tier_flag"))
        try container.encode(profileIdc, forKey: SpecNameKey(prefix + "profile_idc"))
        try container.encode(
            (0..<32).map(profileCompatibilityFlag), forKey: SpecNameKey(prefix + "profile_compatibility_flag"))
        try container.encode(progressiveSourceFlag, forKey: SpecNameKey(prefix + "progressive_source_flag"))
        try container.encode(interlacedSourceFlag, forKey: SpecNameKey(prefix + "interlaced_source_flag"))
        try container.encode(nonPackedConstraintFlag, forKey: SpecNameKey(prefix + "non_packed_constraint_flag"))
        try container.encode(frameOnlyConstraintFlag, forKey: SpecNameKey(prefix + "frame_only_constraint_flag"))
        try container.encode(constraintIndicatorFlags, forKey: SpecNameKey(prefix + "constraint_indicator_flags"))
    }
}

extension HEVC.ProfileTierLevel.SubLayer: Encodable {
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: SpecNameKey.self)
        try profile?.encode(prefix: "sub_layer_", into: &container)
        try container.encodeIfPresent(levelIdc, forKey: SpecNameKey("sub_layer_level_idc"))
    }
}

extension HEVC.SubLayerOrderingInfo: Encodable {
    public func encode(to encoder: any Encoder) throws { try SpecNameEncoding.encode(self, to: encoder) }
}

extension HEVC.HRDParameters: Encodable {
    public func encode(to encoder: any Encoder) throws {
        try SpecNameEncoding.encode(self, extra: [("bit_rate", bitRate), ("cpb_size", cpbSize)], to: encoder)
    }
}

extension HEVC.HRDParameters.SubLayer: Encodable {
    public func encode(to encoder: any Encoder) throws { try SpecNameEncoding.encode(self, to: encoder) }
}

extension HEVC.VUIParameters: Encodable {
    public func encode(to encoder: any Encoder) throws {
        try SpecNameEncoding.encode(self, skipping: ["isTruncated"], extra: [("truncated", isTruncated)], to: encoder)
    }
}

extension HEVC.ShortTermRefPicSet: Encodable {
    public func encode(to encoder: any Encoder) throws {
        try SpecNameEncoding.encode(
            self, extra: [("num_negative_pics", numNegativePics), ("num_positive_pics", numPositivePics)],
            to: encoder)
    }
}

extension HEVC.ScalingListData: Encodable {
    /// Per sizeId, per coded matrixId: the prediction delta or the explicit coefficients.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for entries in lists {
            var sizes = container.nestedUnkeyedContainer()
            for entry in entries {
                var fields = sizes.nestedContainer(keyedBy: SpecNameKey.self)
                switch entry {
                case .predicted(let delta):
                    try fields.encode(false, forKey: SpecNameKey("scaling_list_pred_mode_flag"))
                    try fields.encode(delta, forKey: SpecNameKey("scaling_list_pred_matrix_id_delta"))
                case .explicit(let dc, let deltas):
                    try fields.encode(true, forKey: SpecNameKey("scaling_list_pred_mode_flag"))
                    try fields.encodeIfPresent(dc, forKey: SpecNameKey("scaling_list_dc_coef_minus8"))
                    try fields.encode(deltas, forKey: SpecNameKey("scaling_list_delta_coef"))
                }
            }
        }
    }
}

/// Stored properties plus a nested ProfileTierLevel, flattened into one object.
private struct Flattened: Encodable {
    var value: Any
    var profileTierLevel: HEVC.ProfileTierLevel
    var extra: [(String, (any Encodable)?)]

    func encode(to encoder: any Encoder) throws {
        try SpecNameEncoding.encode(value, skipping: ["profileTierLevel"], extra: extra, to: encoder)
        try profileTierLevel.encodeFields(to: encoder)
    }
}

extension HEVC.VideoParameterSet: Encodable {
    public func encode(to encoder: any Encoder) throws {
        try Flattened(value: self, profileTierLevel: profileTierLevel, extra: [("fps", fps)]).encode(to: encoder)
    }
}

extension HEVC.SequenceParameterSet: Encodable {
    /// The syntax elements, profile_tier_level( ) inline (general_profile_idc, general_tier_flag,
    /// general_level_idc …), and the derived width, height, fps, profile, tier, level and block sizes.
    public func encode(to encoder: any Encoder) throws {
        try Flattened(value: self, profileTierLevel: profileTierLevel, extra: [
            ("num_short_term_ref_pic_sets", numShortTermRefPicSets),
            ("num_long_term_ref_pics_sps", longTermRefPicsPresentFlag ? numLongTermRefPicsSps : nil),
            ("width", width), ("height", height), ("fps", fps),
            ("coded_width", picWidthInLumaSamples), ("coded_height", picHeightInLumaSamples),
            ("profile", profile?.name), ("tier", tier.name), ("level", level?.name),
            ("bit_depth_luma", bitDepthLuma), ("bit_depth_chroma", bitDepthChroma),
            ("chroma_array_type", chromaArrayType), ("ctb_size_y", ctbSizeY), ("min_cb_size_y", minCbSizeY),
            ("vui_truncated", vuiTruncated),
        ]).encode(to: encoder)
    }
}

extension HEVC.PictureParameterSet: Encodable {
    public func encode(to encoder: any Encoder) throws {
        try SpecNameEncoding.encode(self, extra: [("init_qp", initQp)], to: encoder)
    }
}

extension HEVC.SliceSegmentHeader: Encodable {
    public func encode(to encoder: any Encoder) throws {
        try SpecNameEncoding.encode(self, skipping: ["nalUnitType", "nuhTemporalIdPlus1", "initQp"], extra: [
            ("nal_unit_type", nalUnitType.rawValue), ("slice_type_name", sliceType?.name), ("slice_qp_y", sliceQpY),
        ], to: encoder)
    }
}

/// slice_type as its coded number (0 B, 1 P, 2 I).
extension HEVC.SliceType: Encodable {}
