// The session's settings types live in `CompressionSession` (CompressionSession.Configuration, …); public code names them
// so. These internal aliases keep the module's own code short.
typealias Configuration = CompressionSession.Configuration
typealias LiveProperties = CompressionSession.LiveProperties
typealias OutputFormat = CompressionSession.OutputFormat
typealias Preset = CompressionSession.Preset
typealias InfoFlags = CompressionSession.InfoFlags
typealias FrameOptions = CompressionSession.FrameOptions
typealias RateControl = CompressionSession.RateControl
