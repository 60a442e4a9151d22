// The session's settings types live in `EncoderSession` (EncoderSession.Configuration, …); public code names them
// so. These internal aliases keep the module's own code short.
typealias Configuration = EncoderSession.Configuration
typealias LiveProperties = EncoderSession.LiveProperties
typealias OutputFormat = EncoderSession.OutputFormat
typealias Preset = EncoderSession.Preset
typealias InfoFlags = EncoderSession.InfoFlags
typealias FrameOptions = EncoderSession.FrameOptions
typealias RateControl = EncoderSession.RateControl
