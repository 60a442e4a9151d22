// Encoder shims: the few libavcodec/libavutil things EncoderSession's libav layer cannot reach from Swift
// (function-like macros, AVFrame.data[8] as a pointer, AVHWFramesContext set-up through a void* payload).
#ifndef RTENC_ENCODER_H
#define RTENC_ENCODER_H

#include "rtenc_libav_common.h"

/// AVERROR_ENCODER_NOT_FOUND.
int rtenc_encoder_averror_encoder_not_found(void);
/// AVERROR_EXTERNAL (what av_hwdevice_ctx_create returns when libva finds no display at all).
int rtenc_encoder_averror_external(void);
/// AV_PKT_FLAG_KEY.
int rtenc_encoder_pkt_flag_key(void);
/// AV_CODEC_FLAG_GLOBAL_HEADER.
int rtenc_encoder_flag_global_header(void);

/// frame->data[plane] (NULL when plane is out of range).
uint8_t *rtenc_encoder_frame_plane(AVFrame *frame, int plane);
/// frame->linesize[plane] (0 when plane is out of range).
int rtenc_encoder_frame_linesize(const AVFrame *frame, int plane);

/// Points `frame` (which must hold no buffers) at caller-owned planes without copying them: data/linesize are set
/// and each plane gets an AVBufferRef (av_buffer_create, read-only, with a free callback that does nothing), so
/// libavcodec treats the frame as reference-counted and takes references instead of copying. The caller must keep
/// the planes alive and unchanged until `rtenc_encoder_frame_is_shared` says 0, then av_frame_unref the frame.
/// `count` is 1…4. Returns 0 or a negative AVERROR (ENOMEM; EINVAL for a bad argument).
int rtenc_encoder_lend_planes(AVFrame *frame, int format, int width, int height, int count,
                              uint8_t *const planes[], const int strides[], const size_t sizes[]);
/// 1 when anything besides `frame` still references one of its buffers (libavcodec kept the frame), else 0.
int rtenc_encoder_frame_is_shared(const AVFrame *frame);

/// Creates and initialises a VAAPI frames context (sw_format NV12) on `device` for `width` × `height` surfaces.
/// Returns 0 and a new reference in *out, or a negative AVERROR.
int rtenc_encoder_vaapi_frames_ctx(AVBufferRef *device, int width, int height, int pool_size, AVBufferRef **out);

/// Bytes the C heap has handed out and not taken back (glibc mallinfo2: uordblks + hblkhd). libav and x264
/// allocate through malloc, so this sees their objects too. For leak checks and memory benchmarks; 0 off glibc.
size_t rtenc_encoder_heap_bytes_in_use(void);

#endif
