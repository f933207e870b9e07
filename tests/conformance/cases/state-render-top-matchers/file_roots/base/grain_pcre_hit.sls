grain_pcre_hit: test.nop
