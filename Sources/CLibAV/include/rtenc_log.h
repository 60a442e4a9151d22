// libav's log (av_log, and x264/VA-API messages that libavcodec forwards to it) routed to a sink the Swift side
// installs, one whole line at a time. av_log_set_callback takes a variadic C callback (a va_list), which Swift
// cannot implement; this file formats the line with av_log_format_line2 and hands the text on.
#ifndef RTENC_LOG_H
#define RTENC_LOG_H

#include "rtenc_libav_common.h"

/// Receives one complete log line (no trailing newline, "[libx264 @ 0x…] " prefix included) and libav's level
/// (AV_LOG_ERROR, …). Called on whatever thread logged: encoder threads, the caller's thread.
typedef void (*rtenc_log_sink)(int level, const char *line);

/// Installs `sink` as libav's log callback and sets libav's level to `max_level` (messages above it are not even
/// formatted). A NULL sink restores libav's default callback (stderr). libavutil is opened on demand
/// (rtenc_libraries.h): until it is, the choice is kept, and it is applied when libavutil loads, before any libav
/// call; installing never loads libavutil itself.
void rtenc_log_install(rtenc_log_sink sink, int max_level);

/// av_log itself (variadic, so not callable from Swift) for one preformatted message: lets tests feed the route.
/// Loads libavutil; does nothing when it cannot be loaded.
void rtenc_log_emit(int level, const char *message);

#endif
