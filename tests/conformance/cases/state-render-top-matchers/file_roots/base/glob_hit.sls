glob_hit: test.nop
