grain_hit: test.nop
