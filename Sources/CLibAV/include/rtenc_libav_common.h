// CLibAV: the few libav*/libva things Swift cannot import directly (function-like macros, variadic functions,
// AVFrame.data[8] as tuples). Everything here is a plain function with an `rtenc_` prefix; the libav headers are
// re-exported so Swift sees the real types.
//
// The module is an umbrella *directory*: every header in include/ is part of it. One header per concern
// (common, encoder, media I/O, VA probe), each with its own .c file.
#ifndef RTENC_LIBAV_COMMON_H
#define RTENC_LIBAV_COMMON_H

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/avutil.h>
#include <libavutil/error.h>
#include <libavutil/opt.h>
#include <libavutil/hwcontext.h>
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>

/// AVERROR(e) for a POSIX errno value.
int rtenc_averror(int posix_errno);
/// AVERROR_EOF.
int rtenc_averror_eof(void);
/// AVERROR(EAGAIN).
int rtenc_averror_eagain(void);
/// AVERROR(ENOMEM).
int rtenc_averror_enomem(void);
/// AV_NOPTS_VALUE.
int64_t rtenc_nopts_value(void);

#endif
