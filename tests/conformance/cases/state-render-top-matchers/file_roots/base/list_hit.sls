list_hit: test.nop
