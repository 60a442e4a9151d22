// `PixelBuffer` and `PixelFormat` lived here until they moved to MediaCore; re-exported so code that imports
// EncoderSession alone (the README examples, bench/, users' packages) keeps compiling unchanged.
@_exported import MediaCore
// `LibAVLog.route(to:)` is part of using the session: an embedder picks where libav's and x264's lines go.
@_exported import LibAVLog
