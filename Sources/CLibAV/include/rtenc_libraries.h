// libav* and libva on demand: rtenc links none of them. Each is opened with dlopen the first time something needs
// it, and every call rtenc makes into them goes through a wrapper named after the function it stands for
// (`rtenc_avcodec_open2` for `avcodec_open2`), with the same signature.
//
// Why: linked, libavcodec alone makes the dynamic loader map and relocate ~96 libraries (x264, x265, dav1d, libjxl,
// X11, OpenCL, …) at every start, ~15–20 ms and ~9 MiB before main, in processes that never encode or decode —
// `rtenc send` of an Annex-B file, `receive` without --decode, `packetize`, `relay`, `--help`. libavutil pulls in
// 23 of them by itself (VA-API, VDPAU, X11, libmfx, OpenCL), so it is opened lazily too.
//
// The one table below is the list of libav/libva functions rtenc uses: it declares the wrappers (here), and
// defines the function-pointer table, the symbol lookup and the wrappers (libraries.c). A function missing from it
// cannot be called: the libraries are not linked, so a direct call is a link error.
#ifndef RTENC_LIBRARIES_H
#define RTENC_LIBRARIES_H

#include "rtenc_libav_common.h"
#include <va/va.h>
#include <va/va_drm.h>
#include <va/va_str.h>

/// The libraries rtenc opens on demand. Opening one opens what it depends on first (libavcodec, libswscale and
/// libavformat need libavutil, libavformat needs libavcodec, libva-drm needs libva), so libav's log route is in
/// place (rtenc_log.h) before anything of libav runs.
typedef enum rtenc_library {
    RTENC_LIBAVUTIL,
    RTENC_LIBAVCODEC,
    RTENC_LIBSWSCALE,
    RTENC_LIBAVFORMAT,
    RTENC_LIBVA,
    RTENC_LIBVA_DRM,
    RTENC_LIBRARY_COUNT
} rtenc_library;

/// Opens `library` (and what it depends on) once per process; thread-safe. Returns 0, or -1 when it cannot be
/// opened or lacks a function of the table; the reason is then in `rtenc_library_load_error`. A failure is final.
int rtenc_library_load(rtenc_library library);
/// dlopen/dlsym's reason for a failed load (naming the library), or NULL when it is loaded or was never tried.
const char *rtenc_library_load_error(rtenc_library library);
/// 1 once `library` is loaded, else 0 (does not try to load it).
int rtenc_library_is_loaded(rtenc_library library);
/// The file name rtenc opens for `library` ("libavcodec.so.59"), from the headers compiled against.
const char *rtenc_library_soname(rtenc_library library);

// The table: F(library, return type, name, (parameters), (arguments), value returned when the library cannot be
// opened) for functions with a result, V(library, name, (parameters), (arguments)) for those without (a no-op
// then: nothing they could free or reset can exist). The value on failure is never relied on: callers load the
// library first and report its failure (LibAVSupport); it only keeps a forgotten load from crashing.
#define RTENC_LIBRARY_FUNCTIONS(F, V)                                                                              \
    /* libavutil: frames, buffers, hardware contexts, options, maths, memory, errors, log */                     \
    F(RTENC_LIBAVUTIL, AVFrame *, av_frame_alloc, (void), (), NULL)                                              \
    V(RTENC_LIBAVUTIL, av_frame_free, (AVFrame **frame), (frame))                                                \
    F(RTENC_LIBAVUTIL, int, av_frame_ref, (AVFrame *dst, const AVFrame *src), (dst, src), AVERROR(ENOSYS))       \
    V(RTENC_LIBAVUTIL, av_frame_unref, (AVFrame *frame), (frame))                                                \
    F(RTENC_LIBAVUTIL, int, av_frame_get_buffer, (AVFrame *frame, int align), (frame, align), AVERROR(ENOSYS))   \
    F(RTENC_LIBAVUTIL, int, av_frame_make_writable, (AVFrame *frame), (frame), AVERROR(ENOSYS))                  \
    F(RTENC_LIBAVUTIL, AVBufferRef *, av_buffer_create,                                                          \
      (uint8_t *data, size_t size, void (*free)(void *opaque, uint8_t *data), void *opaque, int flags),          \
      (data, size, free, opaque, flags), NULL)                                                                   \
    F(RTENC_LIBAVUTIL, AVBufferRef *, av_buffer_ref, (const AVBufferRef *buffer), (buffer), NULL)                \
    V(RTENC_LIBAVUTIL, av_buffer_unref, (AVBufferRef **buffer), (buffer))                                        \
    F(RTENC_LIBAVUTIL, int, av_buffer_get_ref_count, (const AVBufferRef *buffer), (buffer), 0)                   \
    F(RTENC_LIBAVUTIL, int, av_hwdevice_ctx_create,                                                              \
      (AVBufferRef **device, enum AVHWDeviceType type, const char *name, AVDictionary *options, int flags),      \
      (device, type, name, options, flags), AVERROR(ENOSYS))                                                     \
    F(RTENC_LIBAVUTIL, AVBufferRef *, av_hwframe_ctx_alloc, (AVBufferRef *device), (device), NULL)               \
    F(RTENC_LIBAVUTIL, int, av_hwframe_ctx_init, (AVBufferRef *frames), (frames), AVERROR(ENOSYS))               \
    F(RTENC_LIBAVUTIL, int, av_hwframe_get_buffer, (AVBufferRef *frames, AVFrame *frame, int flags),             \
      (frames, frame, flags), AVERROR(ENOSYS))                                                                   \
    F(RTENC_LIBAVUTIL, int, av_hwframe_transfer_data, (AVFrame *dst, const AVFrame *src, int flags),             \
      (dst, src, flags), AVERROR(ENOSYS))                                                                        \
    F(RTENC_LIBAVUTIL, int, av_opt_set, (void *object, const char *name, const char *value, int search_flags),   \
      (object, name, value, search_flags), AVERROR(ENOSYS))                                                      \
    F(RTENC_LIBAVUTIL, int64_t, av_rescale_q, (int64_t a, AVRational bq, AVRational cq), (a, bq, cq), 0)         \
    F(RTENC_LIBAVUTIL, void *, av_mallocz, (size_t size), (size), NULL)                                          \
    V(RTENC_LIBAVUTIL, av_freep, (void *pointer), (pointer))                                                     \
    F(RTENC_LIBAVUTIL, const char *, av_get_pix_fmt_name, (enum AVPixelFormat format), (format), NULL)           \
    F(RTENC_LIBAVUTIL, const AVPixFmtDescriptor *, av_pix_fmt_desc_get, (enum AVPixelFormat format), (format),  \
      NULL)                                                                                                      \
    F(RTENC_LIBAVUTIL, int, av_strerror, (int status, char *text, size_t size), (status, text, size),            \
      AVERROR(ENOSYS))                                                                                           \
    F(RTENC_LIBAVUTIL, int, av_log_get_level, (void), (), AV_LOG_QUIET)                                          \
    V(RTENC_LIBAVUTIL, av_log_set_level, (int level), (level))                                                   \
    V(RTENC_LIBAVUTIL, av_log_set_callback, (void (*callback)(void *, int, const char *, va_list)), (callback))  \
    F(RTENC_LIBAVUTIL, int, av_log_format_line2,                                                                 \
      (void *object, int level, const char *format, va_list arguments, char *line, int size, int *print_prefix), \
      (object, level, format, arguments, line, size, print_prefix), AVERROR(ENOSYS))                             \
    /* libavcodec: codecs, the send/receive loop, packets */                                                     \
    F(RTENC_LIBAVCODEC, const AVCodec *, avcodec_find_encoder_by_name, (const char *name), (name), NULL)         \
    F(RTENC_LIBAVCODEC, const AVCodec *, avcodec_find_decoder, (enum AVCodecID id), (id), NULL)                  \
    F(RTENC_LIBAVCODEC, const char *, avcodec_get_name, (enum AVCodecID id), (id), "unknown")                    \
    F(RTENC_LIBAVCODEC, AVCodecContext *, avcodec_alloc_context3, (const AVCodec *codec), (codec), NULL)         \
    V(RTENC_LIBAVCODEC, avcodec_free_context, (AVCodecContext **context), (context))                             \
    F(RTENC_LIBAVCODEC, int, avcodec_open2, (AVCodecContext *context, const AVCodec *codec, AVDictionary **options), \
      (context, codec, options), AVERROR(ENOSYS))                                                                \
    F(RTENC_LIBAVCODEC, int, avcodec_parameters_to_context,                                                      \
      (AVCodecContext *context, const AVCodecParameters *parameters), (context, parameters), AVERROR(ENOSYS))    \
    F(RTENC_LIBAVCODEC, int, avcodec_send_frame, (AVCodecContext *context, const AVFrame *frame),                \
      (context, frame), AVERROR(ENOSYS))                                                                         \
    F(RTENC_LIBAVCODEC, int, avcodec_receive_packet, (AVCodecContext *context, AVPacket *packet),                \
      (context, packet), AVERROR(ENOSYS))                                                                        \
    F(RTENC_LIBAVCODEC, int, avcodec_send_packet, (AVCodecContext *context, const AVPacket *packet),             \
      (context, packet), AVERROR(ENOSYS))                                                                        \
    F(RTENC_LIBAVCODEC, int, avcodec_receive_frame, (AVCodecContext *context, AVFrame *frame),                   \
      (context, frame), AVERROR(ENOSYS))                                                                         \
    V(RTENC_LIBAVCODEC, avcodec_flush_buffers, (AVCodecContext *context), (context))                             \
    F(RTENC_LIBAVCODEC, AVPacket *, av_packet_alloc, (void), (), NULL)                                           \
    V(RTENC_LIBAVCODEC, av_packet_free, (AVPacket **packet), (packet))                                           \
    V(RTENC_LIBAVCODEC, av_packet_unref, (AVPacket *packet), (packet))                                           \
    F(RTENC_LIBAVCODEC, int, av_new_packet, (AVPacket *packet, int size), (packet, size), AVERROR(ENOSYS))       \
    /* libswscale */                                                                                             \
    F(RTENC_LIBSWSCALE, struct SwsContext *, sws_getContext,                                                     \
      (int source_width, int source_height, enum AVPixelFormat source_format, int width, int height,             \
       enum AVPixelFormat format, int flags, SwsFilter *source_filter, SwsFilter *filter, const double *param),  \
      (source_width, source_height, source_format, width, height, format, flags, source_filter, filter, param),  \
      NULL)                                                                                                      \
    V(RTENC_LIBSWSCALE, sws_freeContext, (struct SwsContext *context), (context))                                \
    F(RTENC_LIBSWSCALE, int, sws_scale,                                                                          \
      (struct SwsContext *context, const uint8_t *const source[], const int source_stride[], int y, int height,   \
       uint8_t *const destination[], const int stride[]),                                                        \
      (context, source, source_stride, y, height, destination, stride), AVERROR(ENOSYS))                         \
    F(RTENC_LIBSWSCALE, const int *, sws_getCoefficients, (int colorspace), (colorspace), NULL)                 \
    F(RTENC_LIBSWSCALE, int, sws_setColorspaceDetails,                                                           \
      (struct SwsContext *context, const int inverse_table[4], int source_range, const int table[4], int range,  \
       int brightness, int contrast, int saturation),                                                            \
      (context, inverse_table, source_range, table, range, brightness, contrast, saturation), -1)               \
    /* libavformat: demuxing and muxing (MediaIO's FormatInput/FormatOutput) */                                  \
    F(RTENC_LIBAVFORMAT, int, avformat_open_input,                                                               \
      (AVFormatContext **context, const char *url, const AVInputFormat *format, AVDictionary **options),         \
      (context, url, format, options), AVERROR(ENOSYS))                                                          \
    F(RTENC_LIBAVFORMAT, int, avformat_find_stream_info, (AVFormatContext *context, AVDictionary **options),     \
      (context, options), AVERROR(ENOSYS))                                                                       \
    V(RTENC_LIBAVFORMAT, avformat_close_input, (AVFormatContext **context), (context))                           \
    F(RTENC_LIBAVFORMAT, int, av_find_best_stream,                                                               \
      (AVFormatContext *context, enum AVMediaType type, int wanted, int related, const AVCodec **decoder,        \
       int flags),                                                                                               \
      (context, type, wanted, related, decoder, flags), AVERROR(ENOSYS))                                         \
    F(RTENC_LIBAVFORMAT, int, av_read_frame, (AVFormatContext *context, AVPacket *packet), (context, packet),    \
      AVERROR(ENOSYS))                                                                                           \
    F(RTENC_LIBAVFORMAT, int, av_seek_frame, (AVFormatContext *context, int stream, int64_t timestamp, int flags), \
      (context, stream, timestamp, flags), AVERROR(ENOSYS))                                                      \
    F(RTENC_LIBAVFORMAT, int, avformat_alloc_output_context2,                                                    \
      (AVFormatContext **context, const AVOutputFormat *format, const char *format_name, const char *filename),  \
      (context, format, format_name, filename), AVERROR(ENOSYS))                                                 \
    F(RTENC_LIBAVFORMAT, AVStream *, avformat_new_stream, (AVFormatContext *context, const AVCodec *codec),       \
      (context, codec), NULL)                                                                                    \
    V(RTENC_LIBAVFORMAT, avformat_free_context, (AVFormatContext *context), (context))                           \
    F(RTENC_LIBAVFORMAT, int, avio_open, (AVIOContext **io, const char *url, int flags), (io, url, flags),       \
      AVERROR(ENOSYS))                                                                                           \
    F(RTENC_LIBAVFORMAT, int, avio_closep, (AVIOContext **io), (io), AVERROR(ENOSYS))                            \
    F(RTENC_LIBAVFORMAT, int, avformat_write_header, (AVFormatContext *context, AVDictionary **options),         \
      (context, options), AVERROR(ENOSYS))                                                                       \
    F(RTENC_LIBAVFORMAT, int, av_interleaved_write_frame, (AVFormatContext *context, AVPacket *packet),          \
      (context, packet), AVERROR(ENOSYS))                                                                        \
    F(RTENC_LIBAVFORMAT, int, av_write_trailer, (AVFormatContext *context), (context), AVERROR(ENOSYS))          \
    /* libva and libva-drm: the VA-API probe (the encoder reaches VA-API through libavutil's hwcontext) */       \
    F(RTENC_LIBVA, VAStatus, vaInitialize, (VADisplay display, int *major, int *minor), (display, major, minor), \
      VA_STATUS_ERROR_UNIMPLEMENTED)                                                                             \
    F(RTENC_LIBVA, VAStatus, vaTerminate, (VADisplay display), (display), VA_STATUS_ERROR_UNIMPLEMENTED)         \
    F(RTENC_LIBVA, const char *, vaErrorStr, (VAStatus status), (status), "libva not loaded")                   \
    F(RTENC_LIBVA, const char *, vaQueryVendorString, (VADisplay display), (display), NULL)                      \
    F(RTENC_LIBVA, int, vaMaxNumProfiles, (VADisplay display), (display), 0)                                     \
    F(RTENC_LIBVA, int, vaMaxNumEntrypoints, (VADisplay display), (display), 0)                                  \
    F(RTENC_LIBVA, VAStatus, vaQueryConfigProfiles, (VADisplay display, VAProfile *profiles, int *count),        \
      (display, profiles, count), VA_STATUS_ERROR_UNIMPLEMENTED)                                                 \
    F(RTENC_LIBVA, VAStatus, vaQueryConfigEntrypoints,                                                           \
      (VADisplay display, VAProfile profile, VAEntrypoint *entrypoints, int *count),                             \
      (display, profile, entrypoints, count), VA_STATUS_ERROR_UNIMPLEMENTED)                                     \
    F(RTENC_LIBVA, const char *, vaProfileStr, (VAProfile profile), (profile), "unknown")                         \
    F(RTENC_LIBVA, const char *, vaEntrypointStr, (VAEntrypoint entrypoint), (entrypoint), "unknown")            \
    F(RTENC_LIBVA, VAMessageCallback, vaSetErrorCallback,                                                        \
      (VADisplay display, VAMessageCallback callback, void *context), (display, callback, context), NULL)        \
    F(RTENC_LIBVA, VAMessageCallback, vaSetInfoCallback,                                                         \
      (VADisplay display, VAMessageCallback callback, void *context), (display, callback, context), NULL)        \
    F(RTENC_LIBVA_DRM, VADisplay, vaGetDisplayDRM, (int fd), (fd), NULL)

#define RTENC_DECLARE_WRAPPER(library, type, name, parameters, arguments, failure) type rtenc_##name parameters;
#define RTENC_DECLARE_VOID_WRAPPER(library, name, parameters, arguments) void rtenc_##name parameters;
RTENC_LIBRARY_FUNCTIONS(RTENC_DECLARE_WRAPPER, RTENC_DECLARE_VOID_WRAPPER)
#undef RTENC_DECLARE_WRAPPER
#undef RTENC_DECLARE_VOID_WRAPPER

#endif
