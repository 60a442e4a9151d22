#include "rtenc_mediaio.h"

int64_t rtenc_mediaio_nopts_value(void) { return AV_NOPTS_VALUE; }

const uint8_t *rtenc_mediaio_frame_data(const AVFrame *frame, int index) {
    if (index < 0 || index >= AV_NUM_DATA_POINTERS) return NULL;
    return frame->data[index];
}

int rtenc_mediaio_frame_linesize(const AVFrame *frame, int index) {
    if (index < 0 || index >= AV_NUM_DATA_POINTERS) return 0;
    return frame->linesize[index];
}

int rtenc_mediaio_scale_frame(struct SwsContext *context, const AVFrame *source,
                              uint8_t *plane0, int stride0,
                              uint8_t *plane1, int stride1,
                              uint8_t *plane2, int stride2) {
    uint8_t *const planes[4] = { plane0, plane1, plane2, NULL };
    const int strides[4] = { stride0, stride1, stride2, 0 };
    return sws_scale(context, (const uint8_t *const *)source->data, source->linesize, 0, source->height,
                     planes, strides);
}
