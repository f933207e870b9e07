sib: test.nop
