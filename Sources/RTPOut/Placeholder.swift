enum RTPOutPlaceholder {}
