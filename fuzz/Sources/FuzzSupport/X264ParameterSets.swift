/// Real parameter sets (x264 veryfast, 320x240, the byte vectors of Tests/BitstreamTests/SPSTests.swift and
/// PPSTests.swift), for targets that need parameter sets the input did not bring.
public enum X264ParameterSets {
    /// High profile SPS, id 0: chroma_format_idc 1, pic_order_cnt_type 0, frame_mbs_only_flag 1.
    public static let highSPS: [UInt8] = [
        0x67, 0x64, 0x00, 0x0D, 0xAC, 0xD9, 0x41, 0x41, 0xFB, 0x01, 0x10, 0x00, 0x00, 0x03, 0x00, 0x10, 0x00, 0x00,
        0x03, 0x03, 0xC0, 0xF1, 0x42, 0x99, 0x60,
    ]
    /// Constrained Baseline SPS, id 0, with VUI timing and bitstream restriction.
    public static let baselineSPS: [UInt8] = [
        0x67, 0x42, 0xC0, 0x0D, 0xDA, 0x05, 0x07, 0xEC, 0x04, 0x40, 0x00, 0x00, 0x03, 0x00, 0x40, 0x00, 0x00, 0x0F,
        0x03, 0xC5, 0x0A, 0xA8,
    ]
    /// High profile PPS, id 0 → SPS 0: CABAC, weighted_bipred_idc 2, transform_8x8_mode_flag 1.
    public static let highPPS: [UInt8] = [0x68, 0xEF, 0x8F, 0xCB]

    /// An avcC (ISO/IEC 14496-15 §5.3.3.1) holding the High SPS and PPS.
    public static let highRecord: [UInt8] =
        [
            0x01, 0x64, 0x00, 0x0D,  // configurationVersion 1, AVCProfileIndication 100, compatibility 0, level 1.3
            0xFF,  // reserved 111111, lengthSizeMinusOne 3
            0xE1, 0x00, UInt8(highSPS.count),  // reserved 111, numOfSequenceParameterSets 1, its length
        ] + highSPS
        + [0x01, 0x00, UInt8(highPPS.count)]  // numOfPictureParameterSets 1, its length
        + highPPS
        + [0xFD, 0xF8, 0xF8, 0x00]  // chroma_format 1, bit depths 8, no SPS extensions
}
