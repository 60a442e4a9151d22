// The session's settings types are nested in `EncoderSession` (EncoderSession.Configuration, …) so the public
// names cannot clash with other modules'; inside the module they keep their short names.
typealias Configuration = EncoderSession.Configuration
typealias LiveProperties = EncoderSession.LiveProperties
typealias OutputFormat = EncoderSession.OutputFormat
typealias Preset = EncoderSession.Preset
typealias InfoFlags = EncoderSession.InfoFlags
typealias FrameOptions = EncoderSession.FrameOptions
