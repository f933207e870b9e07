b_s: test.nop
