dev_web: test.nop
