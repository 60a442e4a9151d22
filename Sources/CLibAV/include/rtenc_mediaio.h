// Media I/O shims: the libav* pieces MediaIO cannot reach from Swift directly (AVFrame.data/linesize import as
// 8-tuples, awkward to hand to sws_scale).
#ifndef RTENC_MEDIAIO_H
#define RTENC_MEDIAIO_H

#include "rtenc_libav_common.h"

/// Plane pointer `index` (0…7) of a frame, or NULL.
const uint8_t *rtenc_mediaio_frame_data(const AVFrame *frame, int index);
/// Line size of plane `index` (0…7) of a frame.
int rtenc_mediaio_frame_linesize(const AVFrame *frame, int index);

/// sws_scale of a whole decoded frame into up to three caller-owned planes (unused planes NULL / 0).
/// Returns the height of the output slice, or a negative AVERROR.
int rtenc_mediaio_scale_frame(struct SwsContext *context, const AVFrame *source,
                              uint8_t *plane0, int stride0,
                              uint8_t *plane1, int stride1,
                              uint8_t *plane2, int stride2);

/// sws_scale between caller-owned planes (unused planes NULL / 0): for converting a PixelBuffer that did not come
/// from libavcodec. Returns the height of the output slice, or a negative AVERROR.
int rtenc_mediaio_scale_planes(struct SwsContext *context, int source_height,
                               const uint8_t *source0, int source_stride0,
                               const uint8_t *source1, int source_stride1,
                               const uint8_t *source2, int source_stride2,
                               uint8_t *plane0, int stride0,
                               uint8_t *plane1, int stride1,
                               uint8_t *plane2, int stride2);

/// sws_scale of a whole decoded frame into four caller-owned planes (Y, Cb, Cr, alpha: a YUVA output format).
/// Returns the height of the output slice, or a negative AVERROR.
int rtenc_mediaio_scale_frame_alpha(struct SwsContext *context, const AVFrame *source,
                                    uint8_t *plane0, int stride0,
                                    uint8_t *plane1, int stride1,
                                    uint8_t *plane2, int stride2,
                                    uint8_t *plane3, int stride3);

/// 1 when pixel format `format` carries an alpha channel (AV_PIX_FMT_FLAG_ALPHA), else 0 (also for an unknown one).
int rtenc_mediaio_format_has_alpha(int format);

#endif
