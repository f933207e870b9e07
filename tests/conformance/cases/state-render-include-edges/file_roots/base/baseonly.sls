baseonly: test.nop
