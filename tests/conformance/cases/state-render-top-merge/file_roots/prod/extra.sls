prod_extra: test.nop
