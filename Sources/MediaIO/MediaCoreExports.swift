// `FrameSource` lived here until it moved to MediaCore (with `PixelBuffer`, which MediaIO took from EncoderSession);
// re-exported so code that imports MediaIO alone keeps compiling and never needs EncoderSession for a buffer.
@_exported import MediaCore
