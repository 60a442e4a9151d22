/// H.264 profiles (Annex A) as SDP and WebRTC name them, told apart by profile_idc and the constraint flags
/// (RFC 6184 §8.1, Table 5; the constrained High row follows libwebrtc's profile table).
public enum H264Profile: String, Hashable, Sendable, CaseIterable, Codable {
    case constrainedBaseline = "Constrained Baseline"
    case baseline = "Baseline"
    case main = "Main"
    case extended = "Extended"
    case high = "High"
    case progressiveHigh = "Progressive High"
    case constrainedHigh = "Constrained High"
    case high10 = "High 10"
    case high10Intra = "High 10 Intra"
    case high422 = "High 4:2:2"
    case high422Intra = "High 4:2:2 Intra"
    case high444Predictive = "High 4:4:4 Predictive"
    case high444Intra = "High 4:4:4 Intra"
    case cavlc444Intra = "CAVLC 4:4:4 Intra"

    /// profile_idc of this profile.
    public var profileIdc: UInt8 {
        switch self {
        case .constrainedBaseline, .baseline: 66
        case .main: 77
        case .extended: 88
        case .high, .progressiveHigh, .constrainedHigh: 100
        case .high10, .high10Intra: 110
        case .high422, .high422Intra: 122
        case .high444Predictive, .high444Intra: 244
        case .cavlc444Intra: 44
        }
    }

    /// The profile-iop byte (constraint_set0_flag in the top bit … constraint_set5_flag, two reserved zeros) this
    /// library writes for the profile.
    public var profileIop: UInt8 {
        switch self {
        case .constrainedBaseline: 0xE0  // set0 + set1 (+ set2): decodable by Baseline, Main and Extended decoders
        case .baseline: 0x00
        case .main: 0x00
        case .extended: 0x00
        case .high: 0x00
        case .progressiveHigh: 0x08  // set4
        case .constrainedHigh: 0x0C  // set4 + set5
        case .high10, .high422, .high444Predictive: 0x00
        case .high10Intra, .high422Intra, .high444Intra, .cavlc444Intra: 0x10  // set3
        }
    }

    /// The profile a profile_idc and profile-iop byte describe; nil for combinations RFC 6184 does not name.
    public init?(profileIdc: UInt8, profileIop: UInt8) {
        let set0 = profileIop & 0x80 != 0
        let set1 = profileIop & 0x40 != 0
        let set3 = profileIop & 0x10 != 0
        let set4 = profileIop & 0x08 != 0
        let set5 = profileIop & 0x04 != 0
        switch profileIdc {
        case 66:
            self = set1 ? .constrainedBaseline : .baseline
        case 77:
            // A Main stream with constraint_set0 also obeys Baseline: Constrained Baseline.
            self = set0 ? .constrainedBaseline : .main
        case 88:
            self = set0 ? (set1 ? .constrainedBaseline : .baseline) : .extended
        case 100:
            self = set4 ? (set5 ? .constrainedHigh : .progressiveHigh) : .high
        case 110:
            self = set3 ? .high10Intra : .high10
        case 122:
            self = set3 ? .high422Intra : .high422
        case 244:
            self = set3 ? .high444Intra : .high444Predictive
        case 44:
            self = .cavlc444Intra
        default:
            return nil
        }
    }

    /// cpbBrVclFactor (Table A-2; §A.3.1 for Baseline, Main, Extended): MaxBR and MaxCPB of Table A-1 are in
    /// units of this many bits (per second) for the VCL HRD.
    public var cpbBrVclFactor: Int {
        switch self {
        case .constrainedBaseline, .baseline, .main, .extended: 1000
        case .high, .progressiveHigh, .constrainedHigh: 1250
        case .high10, .high10Intra: 3000
        case .high422, .high422Intra, .high444Predictive, .high444Intra, .cavlc444Intra: 4000
        }
    }

    /// cpbBrNalFactor: the same for the NAL HRD (1.2 × the VCL factor).
    public var cpbBrNalFactor: Int { cpbBrVclFactor * 6 / 5 }

    /// Level 1b is signalled with level_idc 11 and constraint_set3_flag in these profiles, with level_idc 9 in
    /// the others (§A.3.1, §A.3.2; RFC 6184 §8.1).
    public var signalsLevel1bWithConstraintSet3: Bool {
        switch self {
        case .constrainedBaseline, .baseline, .main, .extended: true
        default: false
        }
    }
}
