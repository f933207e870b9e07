a_s: test.nop
