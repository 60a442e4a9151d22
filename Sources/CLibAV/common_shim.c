#include "rtenc_libav_common.h"

int rtenc_averror(int posix_errno) { return AVERROR(posix_errno); }
int rtenc_averror_eof(void) { return AVERROR_EOF; }
int rtenc_averror_eagain(void) { return AVERROR(EAGAIN); }
int rtenc_averror_enomem(void) { return AVERROR(ENOMEM); }
int64_t rtenc_nopts_value(void) { return AV_NOPTS_VALUE; }
