enum EncoderSessionPlaceholder {}
