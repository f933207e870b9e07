base_web: test.nop
