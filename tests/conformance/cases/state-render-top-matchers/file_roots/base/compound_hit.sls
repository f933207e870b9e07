compound_hit: test.nop
