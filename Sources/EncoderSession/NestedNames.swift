// The session's settings types live in `EncoderSession` (EncoderSession.Configuration, …), the name to use in new
// code. These aliases keep the short names working — inside the module, and for code already written against them
// (the rtenc CLI); drop them once nothing outside uses the short names.
public typealias Configuration = EncoderSession.Configuration
public typealias LiveProperties = EncoderSession.LiveProperties
public typealias OutputFormat = EncoderSession.OutputFormat
public typealias Preset = EncoderSession.Preset
public typealias InfoFlags = EncoderSession.InfoFlags
public typealias FrameOptions = EncoderSession.FrameOptions
