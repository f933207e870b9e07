never: test.nop
