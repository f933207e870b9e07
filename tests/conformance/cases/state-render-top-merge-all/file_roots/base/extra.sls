base_extra: test.nop
