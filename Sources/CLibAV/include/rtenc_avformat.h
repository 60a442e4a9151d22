// libavformat on demand: rtenc links it lazily (dlopen on first use) instead of at start-up.
//
// Why: libavformat pulls in 38 libraries libavcodec does not (TLS, Kerberos, SSH, SRT, ZeroMQ, libopenmpt, …) and
// mapping and relocating them costs ~9.4 MiB of resident memory and a few ms in every process, including the
// `rtenc encode x.y4m -o x.h264` and `rtenc stream` runs that never open a container. Only MediaIO's
// FormatInput/FormatOutput call libavformat, and they call it through these wrappers, which have the signatures of
// the functions they stand for. The soname comes from the headers compiled against (LIBAVFORMAT_VERSION_MAJOR).
#ifndef RTENC_AVFORMAT_H
#define RTENC_AVFORMAT_H

#include "rtenc_libav_common.h"

/// Loads libavformat once per process (thread-safe). Returns 0, or -1 when it cannot be loaded; the reason is then
/// in `rtenc_avformat_load_error()`. Every wrapper below loads it too, returning AVERROR(ENOSYS) (or NULL) on failure.
int rtenc_avformat_load(void);
/// dlopen/dlsym's reason for the last failed load, or NULL.
const char *rtenc_avformat_load_error(void);

int rtenc_avformat_open_input(AVFormatContext **context, const char *url, const AVInputFormat *format,
                              AVDictionary **options);
int rtenc_avformat_find_stream_info(AVFormatContext *context, AVDictionary **options);
void rtenc_avformat_close_input(AVFormatContext **context);
int rtenc_av_find_best_stream(AVFormatContext *context, enum AVMediaType type, int wanted, int related,
                              const AVCodec **decoder, int flags);
int rtenc_av_read_frame(AVFormatContext *context, AVPacket *packet);
int rtenc_av_seek_frame(AVFormatContext *context, int stream_index, int64_t timestamp, int flags);
int rtenc_avformat_alloc_output_context2(AVFormatContext **context, const AVOutputFormat *format,
                                         const char *format_name, const char *filename);
AVStream *rtenc_avformat_new_stream(AVFormatContext *context, const AVCodec *codec);
void rtenc_avformat_free_context(AVFormatContext *context);
int rtenc_avio_open(AVIOContext **io, const char *url, int flags);
int rtenc_avio_closep(AVIOContext **io);
int rtenc_avformat_write_header(AVFormatContext *context, AVDictionary **options);
int rtenc_av_interleaved_write_frame(AVFormatContext *context, AVPacket *packet);
int rtenc_av_write_trailer(AVFormatContext *context);

#endif
