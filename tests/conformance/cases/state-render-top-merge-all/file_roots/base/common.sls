base_common: test.nop
