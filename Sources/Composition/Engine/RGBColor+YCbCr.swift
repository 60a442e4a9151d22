import MediaIO
import Timeline

extension RGBColor {
    /// The 8-bit limited-range Y′CbCr of this colour in `matrix` (BT.601-7 / BT.709-6 §3.5: Y′ 16…235,
    /// Cb/Cr 16…240), rounded to nearest.
    public func ycbcr(_ matrix: YCbCrMatrix) -> (y: UInt8, cb: UInt8, cr: UInt8) {
        let (kr, kb) = matrix.coefficients
        let r = Double(red) / 255, g = Double(green) / 255, b = Double(blue) / 255
        let luma = kr * r + (1 - kr - kb) * g + kb * b
        let cb = (b - luma) / (2 * (1 - kb))
        let cr = (r - luma) / (2 * (1 - kr))
        func quantize(_ value: Double) -> UInt8 { UInt8(max(0, min(255, value.rounded()))) }
        return (quantize(16 + 219 * luma), quantize(128 + 224 * cb), quantize(128 + 224 * cr))
    }
}
