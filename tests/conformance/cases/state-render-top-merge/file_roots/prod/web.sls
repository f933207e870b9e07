prod_web: test.nop
