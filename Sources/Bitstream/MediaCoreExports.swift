// `MediaTime` and `Rational` lived here until they moved to MediaCore; re-exported so code that imports Bitstream
// alone (bench/, fuzz/, users' packages) keeps compiling unchanged.
@_exported import MediaCore
