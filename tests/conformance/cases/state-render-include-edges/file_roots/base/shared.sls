shared_base: test.nop
