// `PixelBuffer` and `PixelFormat` lived here until they moved to MediaCore; re-exported so code that imports
// EncoderSession alone (the README examples, bench/, users' packages) keeps compiling unchanged.
@_exported import MediaCore
